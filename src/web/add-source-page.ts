import { html } from './html.ts';
import { layout, type PageUser } from './layout.ts';

/**
 * Adding a source in the browser, or editing one (`editing` names it): category, type and name, then the type's
 * fields with their labels and help (built by add-source.js from GET /api/source-types); credentials go in password
 * fields and only to .env. A file source leads with its folder, and takes CSV uploads once saved. The entered
 * configuration can be tested before it is saved, unless its type runs code; a new source is synced at once. A type
 * that runs code is listed for an editor as one an admin adds.
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
      <div id="after-save-upload" hidden>
        <div id="upload-zone" class="drop-zone">
          <p><strong>Drop CSV files here</strong> or</p>
          <label for="upload-input" class="button secondary">Choose files</label>
          <input id="upload-input" class="visually-hidden" type="file" accept=".csv,text/csv" multiple data-upload="input">
          <p id="upload-where" class="muted"></p>
          <div data-upload="progress" hidden><label for="upload-bar" data-upload="label">Uploading</label><progress id="upload-bar" max="1" value="0" data-upload="bar"></progress></div>
        </div>
        <p id="upload-result" class="notice" role="status" hidden></p>
      </div>
      <div class="actions">
        <button type="button" id="sync-source">Sync again</button>
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
      <p class="muted">These types are not added with this form; here is what to do for each:</p>
      <ul id="not-addable" class="activity"></ul>
    </section>` : html``}`,
  });
}
