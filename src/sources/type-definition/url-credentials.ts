import type { z } from 'zod';

/** Query parameters that carry a credential by name: api_key, apikey, key, token, access_token, client_secret, sig… */
const CREDENTIAL_PARAMETER = /^(sig|signature|pwd|auth|apikey|token_auth)$|(^|[-_])(key|token|secret|passw(or)?d|signature)$/i;

/**
 * Reports a URL that carries a credential (user:password@, or a key in its query string): sources.yml is shown to
 * viewers and kept with the project, so the credential belongs in the environment. The value stays out of the message.
 */
export function refuseUrlCredentials(url: string, context: z.RefinementCtx): void {
  if (!URL.canParse(url)) return;
  const parsed = new URL(url);
  const advice = 'keep the credential in an environment variable (auth_type with auth_token_env, or api_key_location: query)';
  if (parsed.username !== '' || parsed.password !== '') {
    context.addIssue({ code: 'custom', input: undefined, message: `holds credentials before the host (user:password@); ${advice}` });
  }
  for (const [name, value] of parsed.searchParams) {
    if (value !== '' && CREDENTIAL_PARAMETER.test(name)) {
      context.addIssue({ code: 'custom', input: undefined, message: `holds a credential in the query parameter ${name}; ${advice}` });
    }
  }
}
