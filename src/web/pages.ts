import { html } from './html.ts';
import { layout, type PageUser } from './layout.ts';

const LOGIN_ERRORS: Record<string, string> = {
  invalid_credentials: 'Invalid email or password.',
  oauth_no_account: 'No Quarry account uses that email. Ask an admin to add you first.',
  session_expired: 'Your session has ended. Please sign in again.',
};

export function renderLoginPage(options: { next: string; error: string | undefined; projectName: string }): string {
  const message = options.error === undefined ? undefined : LOGIN_ERRORS[options.error] ?? 'Sign-in failed.';
  return layout({
    title: 'Sign in',
    user: null,
    scripts: ['/static/public/login.js'],
    body: html`<section class="card narrow" aria-labelledby="login-title">
      <h1 id="login-title">Sign in to ${options.projectName}</h1>
      <p id="login-error" class="error" role="alert"${message === undefined ? html` hidden` : html``}>${message}</p>
      <form id="login-form" method="post" action="/api/auth/login">
        <input type="hidden" name="next" value="${options.next}">
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username" required autofocus>
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required>
        <button type="submit">Sign in</button>
      </form>
    </section>`,
  });
}

export function renderHomePage(options: { user: PageUser; projectName: string; version: string }): string {
  return layout({
    title: options.projectName,
    user: options.user,
    body: html`<section class="card">
      <h1>${options.projectName}</h1>
      <p>Signed in as <strong id="whoami">${options.user.email}</strong> with the <strong>${options.user.role}</strong> role.</p>
      <p class="muted">Quarry ${options.version}. The REST API is documented at <a href="/api/docs">/api/docs</a> and <a href="/api/redoc">/api/redoc</a>.</p>
    </section>`,
  });
}
