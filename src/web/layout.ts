import { html, type SafeHtml } from './html.ts';

export interface PageUser {
  readonly email: string;
  readonly name: string;
  readonly role: string;
}

const NAV: readonly { href: string; label: string }[] = [
  { href: '/', label: 'Overview' },
  { href: '/data', label: 'Data' },
  { href: '/models', label: 'Models' },
  { href: '/logs', label: 'Logs' },
  { href: '/health', label: 'Health' },
  { href: '/dashboard/', label: 'Dashboards' },
  { href: '/transform-docs/', label: 'Transformation docs' },
];

/** The frame of every page: head, skip link, header with the signed-in user, main content. */
export function layout(options: { title: string; user: PageUser | null; body: SafeHtml; scripts?: readonly string[]; current?: string }): string {
  const link = (href: string, label: string) => html`<a href="${href}"${options.current === href ? html` aria-current="page"` : html``}>${label}</a>`;
  const header = options.user
    ? html`<header class="top">
        <a class="brand" href="/">Quarry</a>
        <nav aria-label="Main">
          ${NAV.map((item) => link(item.href, item.label))}
        </nav>
        <div class="who">
          <span id="live-state" class="live" hidden></span>
          <a class="account" href="/settings/account" title="Your account">${options.user.name || options.user.email}</a>
          <span class="role">${options.user.role}</span>
          ${options.user.role === 'admin' ? link('/admin/users', 'Users') : html``}
          <a class="api-link" href="/api/docs">API</a>
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
