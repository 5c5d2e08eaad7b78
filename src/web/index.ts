import path from 'node:path';

export {
  renderLoginPage, renderHomePage, renderAccountPage, renderChangePasswordPage, renderUsersPage, renderForbiddenPage, renderUpstreamUnavailablePage, type OAuthButton,
} from './pages.ts';
export type { PageUser } from './layout.ts';

/** Assets anyone may load (the login page needs them before there is a session). */
export const publicStaticRoot = path.join(import.meta.dirname, 'static', 'public');
