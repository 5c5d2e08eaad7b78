import { html, type SafeHtml } from './html.ts';

export interface PageUser {
  readonly email: string;
  readonly name: string;
  readonly role: string;
}

/** The frame of every page: head, skip link, header with the signed-in user, main content. */
export function layout(options: { title: string; user: PageUser | null; body: SafeHtml; scripts?: readonly string[] }): string {
  const header = options.user
    ? html`<header class="top">
        <a class="brand" href="/">Quarry</a>
        <nav aria-label="Main">
          <a href="/settings/account">Account</a>
          ${options.user.role === 'admin' ? html`<a href="/admin/users">Users</a>` : html``}
          <a href="/api/docs">API docs</a>
        </nav>
        <div class="who">
          <span>${options.user.name || options.user.email}</span>
          <span class="role">${options.user.role}</span>
          <button type="button" id="logout" class="link">Sign out</button>
        </div>
      </header>`
    : html`<header class="top"><span class="brand">Quarry</span></header>`;
  const scripts = [...(options.scripts ?? []), ...(options.user ? ['/static/public/session.js'] : [])];
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title} · Quarry</title>
<link rel="stylesheet" href="/static/public/quarry.css">
<link rel="icon" href="/static/public/favicon.svg" type="image/svg+xml">
${scripts.map((src) => html`<script type="module" src="${src}"></script>`)}
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
${header}
<main id="main">${options.body}</main>
</body>
</html>
`.value;
}
