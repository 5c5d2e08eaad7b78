import { html } from './html.ts';
import { layout, type PageUser } from './layout.ts';

/**
 * Adding a source in the browser, or editing one (`editing` names it): category, type and name, then the type's
 * fields with their help (built by add-source.js from GET /api/source-types); credentials go in password fields
 * and only to .env. The entered configuration can be tested before it is saved, unless its type runs code; a new source
 * can be synced. A type that runs code is listed for an editor as one an admin adds.
 */
export function renderAddSourcePage(options: { user: PageUser; editing?: string }): string {
  const { editing } = options;
  const title = editing === undefined ? 'Add a source' : `Edit ${editing}`;
  return layout({
    title,
    user: options.user,
    current: '/',
    scripts: ['/static/public/add-source.js'],
    body: html`<div class="page-head">
      ${editing === undefined ? html`` : html`<p class="crumbs"><a href="/">Overview</a> / <a href="/sources/${encodeURIComponent(editing)}">${editing}</a></p>`}
      <h1>${title}</h1>
      <p class="muted">Saved to <code>.quarry/sources.yml</code> (your comments and order kept); credentials go to the project's <code>.env</code> only.</p>
    </div>
    <section class="card" aria-labelledby="choose-title">
      <h2 id="choose-title">Type and name</h2>
      <form id="add-source-form" novalidate data-editing="${editing ?? ''}">
        <label for="source-category">Category</label>
        <select id="source-category" required></select>
        <label for="source-type">Type</label>
        <select id="source-type" required aria-describedby="type-help"></select>
        <p id="type-help" class="muted"></p>
        <label for="source-name">Name</label>
        <input id="source-name" name="name" required maxlength="63" pattern="[a-z][a-z0-9_]*" aria-describedby="name-help" autocomplete="off">
        <p id="name-help" class="muted">Lowercase letters, digits and underscores, starting with a letter; the warehouse schema is <code>raw_&lt;name&gt;</code>.</p>
        <fieldset id="source-fields"><legend>Settings</legend></fieldset>
        <div class="actions">
          <button type="button" id="test-source" class="secondary">Test connection</button>
          <button type="submit" id="save-source">${editing === undefined ? 'Save source' : 'Save changes'}</button>
        </div>
        <p id="add-source-message" class="notice" role="status" hidden></p>
        <p id="test-result" class="notice" role="status" hidden></p>
      </form>
    </section>
    <section class="card" id="after-save" aria-labelledby="after-title" hidden>
      <h2 id="after-title">Saved</h2>
      <p id="after-save-text"></p>
      <div class="actions">
        <button type="button" id="sync-source">Sync now</button>
      </div>
      <p id="sync-progress" class="muted" aria-live="polite" hidden></p>
      <p id="sync-result" class="notice" role="status" hidden></p>
      <p><a id="source-link" href="/">Go to the source</a></p>
    </section>
    ${editing === undefined ? html`<section class="card" id="admin-types" aria-labelledby="admin-types-title" hidden>
      <h2 id="admin-types-title">Types only an admin adds</h2>
      <p class="muted">These run code on the server: ask an admin to add one.</p>
      <ul id="admin-only" class="activity"></ul>
    </section>
    <section class="card" aria-labelledby="not-here-title">
      <h2 id="not-here-title">Types added by hand</h2>
      <p class="muted">These types are not added here; add them to <code>sources.yml</code> by hand:</p>
      <ul id="not-addable" class="activity"></ul>
    </section>` : html``}`,
  });
}
