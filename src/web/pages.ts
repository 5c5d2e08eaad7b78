import { html } from './html.ts';
import { layout, type PageUser } from './layout.ts';

const LOGIN_ERRORS: Record<string, string> = {
  invalid_credentials: 'Invalid email or password.',
  oauth_no_account: 'No Quarry account uses that email. Ask an admin to add you first.',
  oauth_failed: 'Signing in with that provider did not work. Try again or use your password.',
  session_expired: 'Your session has ended. Please sign in again.',
};

export interface OAuthButton {
  readonly provider: string;
  readonly label: string;
}

export function renderLoginPage(options: { next: string; error: string | undefined; projectName: string; oauth: readonly OAuthButton[] }): string {
  const message = options.error === undefined ? undefined : LOGIN_ERRORS[options.error] ?? 'Sign-in failed.';
  const oauth = options.oauth.length === 0 ? html`` : html`<div class="oauth">
      <p class="muted">or</p>
      ${options.oauth.map((button) => html`<a class="button secondary" href="/auth/oauth/${button.provider}/start?next=${encodeURIComponent(options.next)}">Sign in with ${button.label}</a>`)}
    </div>`;
  return layout({
    title: 'Sign in',
    user: null,
    scripts: ['/static/public/login.js'],
    body: html`<section class="card narrow" aria-labelledby="login-title">
      <h1 id="login-title">Sign in to ${options.projectName}</h1>
      <p id="login-error" class="notice error" role="alert"${message === undefined ? html` hidden` : html``}>${message}</p>
      <form id="login-form" method="post" action="/api/auth/login">
        <input type="hidden" name="next" value="${options.next}">
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username" required autofocus>
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required>
        <button type="submit">Sign in</button>
      </form>
      <form id="totp-form" hidden>
        <label for="code">Two-factor code</label>
        <p class="muted" id="code-help">Enter the 6-digit code from your authenticator app.</p>
        <input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" required aria-describedby="code-help">
        <button type="submit">Verify</button>
      </form>
      ${oauth}
    </section>`,
  });
}

export function renderHomePage(options: { user: PageUser; projectName: string; version: string; canSync: boolean; canRunSchedules: boolean; canAddSources: boolean }): string {
  return layout({
    title: options.projectName,
    user: options.user,
    current: '/',
    scripts: ['/static/public/home.js', '/static/public/schedules.js'],
    body: html`<div class="page-head">
      <h1>${options.projectName}</h1>
      <p class="muted">Signed in as <strong id="whoami">${options.user.email}</strong> with the <strong>${options.user.role}</strong> role · Quarry ${options.version}</p>
    </div>
    <section id="health-warnings" class="notice warning" aria-labelledby="warnings-title" hidden>
      <h2 id="warnings-title">Needs attention</h2>
      <ul></ul>
      <p><a href="/health">Platform health</a></p>
    </section>
    <section class="card" aria-labelledby="sources-title">
      <div class="split"><h2 id="sources-title">Sources</h2>${options.canAddSources ? html`<a class="button" href="/sources/new">Add source</a>` : ''}</div>
      <p id="sources-message" class="notice" role="status" hidden></p>
      <div class="scroll"><table id="sources" data-can-sync="${options.canSync ? 'yes' : 'no'}"><caption class="visually-hidden">Sources and their state</caption>
        <thead><tr><th scope="col">Name</th><th scope="col" class="phone-hide">Type</th><th scope="col">Status</th><th scope="col" class="number">Rows</th><th scope="col" class="phone-hide">Fresh</th><th scope="col" class="phone-hide">Last sync</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
        <tbody></tbody></table></div>
    </section>
    <section class="card" aria-labelledby="schedules-title">
      <h2 id="schedules-title">Schedules</h2>
      <p id="schedules-message" class="notice" role="status" hidden></p>
      <div class="scroll"><table id="schedules" data-can-run="${options.canRunSchedules ? 'yes' : 'no'}"><caption class="visually-hidden">Schedules with their next and last runs</caption>
        <thead><tr><th scope="col">Name</th><th scope="col" class="phone-hide">When</th><th scope="col">Next run</th><th scope="col" class="phone-hide">Last run</th><th scope="col">Outcome</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
        <tbody></tbody></table></div>
    </section>
    <div class="columns">
      <section class="card" aria-labelledby="models-title">
        <h2 id="models-title">Models</h2>
        <p id="models-summary" class="muted">Loading…</p>
        <ul id="models-failing" class="activity"></ul>
        <p><a href="/models">All models and lineage</a></p>
      </section>
      <section class="card" aria-labelledby="activity-title">
        <h2 id="activity-title">Recent activity</h2>
        <ul id="activity" class="activity" aria-live="polite"></ul>
        <p><a href="/logs">All logs</a></p>
      </section>
    </div>`,
  });
}

export function renderAccountPage(options: { user: PageUser }): string {
  return layout({
    title: 'Your account',
    user: options.user,
    scripts: ['/static/public/account.js'],
    body: html`<h1>Your account</h1>
    <p id="account-message" class="notice" role="status" hidden></p>
    <section class="card" aria-labelledby="sessions-title">
      <h2 id="sessions-title">Signed-in sessions</h2>
      <table id="sessions"><caption class="visually-hidden">Your sessions</caption>
        <thead><tr><th scope="col">Started</th><th scope="col">Last active</th><th scope="col">Address</th><th scope="col">Browser</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
        <tbody></tbody></table>
      <button type="button" id="end-others" class="secondary">Sign out all other sessions</button>
    </section>
    <section class="card" aria-labelledby="keys-title">
      <h2 id="keys-title">API keys</h2>
      <p class="muted">Send a key as <code>Authorization: Bearer &lt;key&gt;</code>. It acts with your role.</p>
      <table id="api-keys"><caption class="visually-hidden">Your API keys</caption>
        <thead><tr><th scope="col">Name</th><th scope="col">Key starts with</th><th scope="col">Expires</th><th scope="col">Last used</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
        <tbody></tbody></table>
      <form id="new-key" class="inline">
        <div><label for="key-name">Name</label><input id="key-name" name="name" required maxlength="100"></div>
        <div><label for="key-expiry">Expires (optional, UTC)</label><input id="key-expiry" name="expires_at" type="datetime-local"></div>
        <button type="submit">Create key</button>
      </form>
      <div id="new-key-shown" class="notice ok" hidden>
        <p><strong>Copy this key now: it is not shown again.</strong></p>
        <code id="new-key-value"></code>
      </div>
    </section>
    <section class="card" aria-labelledby="password-title">
      <h2 id="password-title">Password</h2>
      <form id="password-form">
        <label for="current-password">Current password</label>
        <input id="current-password" name="current_password" type="password" autocomplete="current-password" required>
        <label for="new-password">New password (at least 8 characters)</label>
        <input id="new-password" name="new_password" type="password" autocomplete="new-password" minlength="8" required>
        <div class="check"><input type="checkbox" id="revoke-api-keys" name="revoke_api_keys" checked><label for="revoke-api-keys">Also revoke all my API keys</label></div>
        <button type="submit">Change password</button>
      </form>
    </section>
    <section class="card" aria-labelledby="twofactor-title">
      <h2 id="twofactor-title">Two-factor authentication</h2>
      <p id="twofactor-state"></p>
      <button type="button" id="twofactor-start">Set up two-factor</button>
      <div id="twofactor-enroll" hidden>
        <p>Scan this code with an authenticator app, or enter the secret by hand, then type the code it shows.</p>
        <img id="twofactor-qr" alt="QR code for your authenticator app" width="200" height="200">
        <p>Secret: <code id="twofactor-secret"></code></p>
      </div>
      <form id="twofactor-form" hidden>
        <label for="twofactor-code">Code from your app</label>
        <input id="twofactor-code" name="code" inputmode="numeric" pattern="[0-9]{6}" maxlength="6" required>
        <button type="submit" id="twofactor-submit">Turn on</button>
      </form>
    </section>`,
  });
}

export function renderChangePasswordPage(options: { user: PageUser; required: boolean }): string {
  return layout({
    title: 'Change your password',
    user: options.user,
    scripts: ['/static/public/change-password.js'],
    body: html`<section class="card narrow" aria-labelledby="change-title">
      <h1 id="change-title">Change your password</h1>
      ${options.required ? html`<p class="notice">Your password has to be changed before you continue.</p>` : html``}
      <p id="change-message" class="notice error" role="alert" hidden></p>
      <form id="change-form">
        <label for="current-password">Current password</label>
        <input id="current-password" name="current_password" type="password" autocomplete="current-password" required>
        <label for="new-password">New password (at least 8 characters)</label>
        <input id="new-password" name="new_password" type="password" autocomplete="new-password" minlength="8" required>
        <label for="confirm-password">New password again</label>
        <input id="confirm-password" name="confirm" type="password" autocomplete="new-password" minlength="8" required>
        <button type="submit">Change password</button>
      </form>
    </section>`,
  });
}

export function renderUsersPage(options: { user: PageUser }): string {
  return layout({
    title: 'Users',
    user: options.user,
    scripts: ['/static/public/users.js'],
    body: html`<h1>Users</h1>
    <p id="users-message" class="notice" role="status" hidden></p>
    <section class="card">
      <div class="scroll"><table id="users" data-me="${options.user.email}"><caption class="visually-hidden">All users</caption>
        <thead><tr><th scope="col">Email</th><th scope="col">Name</th><th scope="col">Role</th><th scope="col">Status</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
        <tbody></tbody></table></div>
    </section>
    <section class="card" aria-labelledby="add-title">
      <h2 id="add-title">Add a user</h2>
      <form id="add-user" class="inline">
        <div><label for="user-email">Email</label><input id="user-email" name="email" type="email" required></div>
        <div><label for="user-name">Name</label><input id="user-name" name="name"></div>
        <div><label for="user-role">Role</label><select id="user-role" name="role"><option>viewer</option><option>editor</option><option>admin</option></select></div>
        <div><label for="user-password">Initial password</label><input id="user-password" name="password" type="password" minlength="8" required autocomplete="new-password"></div>
        <button type="submit">Add user</button>
      </form>
    </section>`,
  });
}

export function renderForbiddenPage(options: { user: PageUser }): string {
  return layout({
    title: 'Not allowed',
    user: options.user,
    body: html`<section class="card narrow"><h1>Not allowed</h1><p>Your role (${options.user.role}) cannot open this page.</p><p><a href="/">Back to Quarry</a></p></section>`,
  });
}

/** The page a browser gets for a proxy path whose upstream is down (status 502). */
export function renderUpstreamUnavailablePage(options: { label: string }): string {
  return layout({
    title: 'Not available',
    user: null,
    body: html`<section class="card narrow"><h1>Not available</h1><p>${options.label} is not available right now. It starts with Quarry; try again in a moment.</p><p><a href="/">Back to Quarry</a></p></section>`,
  });
}
