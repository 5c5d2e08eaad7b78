import path from 'node:path';

export {
  renderLoginPage, renderHomePage, renderAccountPage, renderChangePasswordPage, renderUsersPage, renderForbiddenPage, renderUpstreamUnavailablePage, type OAuthButton,
} from './pages.ts';
export type { PageUser } from './layout.ts';
export { renderSourcePage } from './source-page.ts';
export { renderAddSourcePage } from './add-source-page.ts';
export { renderModelsPage } from './models-page.ts';
export { renderLogsPage } from './logs-page.ts';
export { renderHealthPage } from './health-page.ts';
export { renderNotFoundPage, renderErrorPage } from './error-pages.ts';

/** Assets anyone may load (the login page needs them before there is a session). */
export const publicStaticRoot = path.join(import.meta.dirname, 'static', 'public');
export { renderDataPage, renderTablePage } from './data-page.ts';
