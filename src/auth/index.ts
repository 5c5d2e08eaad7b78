export { createAuth, normalizeEmail, assertValidEmail, EMAIL_PATTERN, type Auth, type NewSession, type CreatedApiKey } from './create-auth.ts';
export { can, assertCan, assertCanConfigureSource, type Action, type Actor } from './actions.ts';
export { CsrfError, InvalidCredentialsError, UserExistsError, UserNotFoundError } from './errors.ts';
export { WeakPasswordError, MIN_PASSWORD_LENGTH, PASSWORD_COST, assertAcceptablePassword } from './passwords.ts';
export { API_KEY_PREFIX } from './tokens.ts';
export { PARTIAL_SESSION_MS, type ClientInfo } from './sessions.ts';
export { LockedOutError } from './lockout.ts';
export { InvalidTotpCodeError, type TotpEnrollment } from './two-factor.ts';
export { OAuthLogin, OAuthFailedError, OAUTH_PROVIDERS, type OAuthProvider, type OAuthIdentity } from './oauth-login.ts';
