import { html } from './html.ts';
import { layout, type PageUser } from './layout.ts';

/** The page a browser gets for a path Quarry does not have (status 404). */
export function renderNotFoundPage(options: { user: PageUser | null; what?: string }): string {
  return layout({
    title: 'Not found',
    user: options.user,
    body: html`<section class="card narrow error-page" aria-labelledby="error-title">
      <p class="error-code">404</p>
      <h1 id="error-title">${options.what === undefined ? 'Page not found' : `${options.what} not found`}</h1>
      <p>The address may be mistyped, or what it pointed to was renamed or removed.</p>
      <p><a class="button" href="/">Back to the overview</a></p>
    </section>`,
  });
}

/** The page a browser gets when Quarry failed to build a page (status 500); the details are in the service log. */
export function renderErrorPage(options: { user: PageUser | null }): string {
  return layout({
    title: 'Something went wrong',
    user: options.user,
    body: html`<section class="card narrow error-page" aria-labelledby="error-title">
      <p class="error-code">500</p>
      <h1 id="error-title">Something went wrong</h1>
      <p>Quarry could not show this page. The error is in the service log; trying again in a moment often helps.</p>
      <p><a class="button" href="/">Back to the overview</a></p>
    </section>`,
  });
}
