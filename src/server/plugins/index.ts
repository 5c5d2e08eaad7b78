export { installAuthentication, requireActor, requireAction, SESSION_COOKIE } from './authentication.ts';
export { installCsrfProtection, isSameOrigin } from './csrf.ts';
export { installErrorHandler } from './error-handler.ts';
export { installSecurityHeaders } from './security-headers.ts';
export { handleClientError, handleFrameworkError } from './client-error.ts';
export { isApiRequest } from './request-kind.ts';
export { installOpenApi } from './openapi.ts';
export { installRateLimits } from './rate-limit.ts';
