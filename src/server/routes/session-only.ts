/**
 * The OpenAPI security of the routes only a signed-in browser session may use (auth/ refuses an API key there):
 * creating API keys, ending sessions, changing the password or two-factor settings. A leaked key must not mint
 * keys that outlive its revocation, nor sign its owner out.
 */
export const SESSION_ONLY = [{ session: [] }];
