/** rest_api's credential fields by auth_type: the wizard asks, and the form shows, only those of the chosen one. */
export const REST_AUTH_FIELDS: Readonly<Record<string, readonly string[]>> = {
  bearer: ['auth_token_env'],
  api_key: ['auth_token_env', 'api_key_name', 'api_key_location'],
  basic: ['basic_username_env', 'basic_password_env'],
  oauth2_client_credentials: ['access_token_url', 'client_id_env', 'client_secret_env'],
  custom_header: ['auth_header_name', 'auth_token_env'],
  none: [],
};

export const REST_AUTH_FIELD_NAMES: ReadonlySet<string> = new Set(Object.values(REST_AUTH_FIELDS).flat());

/** The auth types that use `field`, or undefined for a field every auth type shows. */
export function authTypesUsing(field: string): string[] | undefined {
  if (!REST_AUTH_FIELD_NAMES.has(field)) return undefined;
  return Object.entries(REST_AUTH_FIELDS).filter(([, fields]) => fields.includes(field)).map(([authType]) => authType);
}
