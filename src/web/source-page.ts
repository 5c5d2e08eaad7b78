import { html } from './html.ts';
import { layout, type PageUser } from './layout.ts';

export interface SourcePageOptions {
  readonly user: PageUser;
  readonly name: string;
  readonly type: string;
  readonly canSync: boolean;
  /** Only file sources take uploads, and only roles that may write files see the controls. */
  readonly canUpload: boolean;
  readonly hasFiles: boolean;
  /** The bucket and folder a source over object storage reads; its objects are listed as the last sync saw them. */
  readonly objectsPrefix?: string | undefined;
  /** Admins and editors may disable, enable, edit and delete the source; `enabled` says whether it is enabled now. */
  readonly canConfigure: boolean;
  readonly enabled: boolean;
}

/** One source: status and actions, its files with upload, tables, history, configuration, logs. */
export function renderSourcePage(options: SourcePageOptions): string {
  const toggle = options.canConfigure
    ? html`<button type="button" id="toggle-enabled" class="secondary" data-enabled="${options.enabled ? 'yes' : 'no'}">${options.enabled ? 'Disable' : 'Enable'}</button>
      <a class="button secondary" href="/sources/${encodeURIComponent(options.name)}/edit">Edit</a>`
    : html``;
  const removal = options.canConfigure
    ? html`<section class="card" aria-labelledby="delete-title">
        <h2 id="delete-title">Delete this source</h2>
        <p class="muted">Removes it from <code>sources.yml</code>. Its warehouse tables and its credentials in <code>.env</code> stay unless you tick below.</p>
        <div class="check"><input type="checkbox" id="drop-tables"><label for="drop-tables">Also drop its warehouse tables</label></div>
        <div class="check"><input type="checkbox" id="remove-credentials"><label for="remove-credentials">Also remove its credentials from .env</label></div>
        <button type="button" id="delete-source" class="danger">Delete source…</button>
      </section>`
    : html``;
  const actions = options.canSync || options.canConfigure
    ? html`<div class="actions">
        ${options.canSync ? html`<button type="button" id="sync">Sync now</button>
        <button type="button" id="full-refresh" class="secondary">Full refresh…</button>` : html``}
        ${toggle}
      </div>`
    : html``;
  const files = options.hasFiles
    ? html`<section class="card" aria-labelledby="files-title">
        <h2 id="files-title">CSV files</h2>
        <p id="files-where" class="muted"></p>
        ${options.canUpload ? html`<div id="drop-zone" class="drop-zone">
          <p><strong>Drop CSV files here</strong> or</p>
          <label for="file-input" class="button secondary">Choose files</label>
          <input id="file-input" class="visually-hidden" type="file" accept=".csv,text/csv" multiple data-upload="input">
          <p class="muted">They are loaded into the warehouse as soon as they arrive.</p>
          <div id="upload-progress" data-upload="progress" hidden><label for="upload-bar" id="upload-label" data-upload="label">Uploading</label><progress id="upload-bar" max="1" value="0" data-upload="bar"></progress></div>
        </div>` : html``}
        <div class="scroll"><table id="files"><caption class="visually-hidden">Files of this source</caption>
          <thead><tr><th scope="col">File</th><th scope="col" class="number">Size</th><th scope="col" class="phone-hide">Modified</th><th scope="col">Loaded</th><th scope="col" class="number">Rows</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
          <tbody></tbody></table></div>
      </section>`
    : html``;
  const objects = options.objectsPrefix === undefined
    ? html``
    : html`<section class="card" aria-labelledby="objects-title">
        <h2 id="objects-title">Objects</h2>
        <p id="objects-where" class="muted">In ${options.objectsPrefix}, as the last sync listed them.</p>
        <div class="scroll"><table id="objects"><caption class="visually-hidden">Objects of this source</caption>
          <thead><tr><th scope="col">Object</th><th scope="col" class="number">Size</th><th scope="col" class="phone-hide">Modified</th><th scope="col">Loaded</th><th scope="col" class="number">Rows</th></tr></thead>
          <tbody></tbody></table></div>
      </section>`;
  return layout({
    title: options.name,
    user: options.user,
    current: '/',
    scripts: ['/static/public/source.js'],
    body: html`<div id="source" class="page-head split" data-source="${options.name}" data-can-upload="${options.canUpload ? 'yes' : 'no'}">
      <div>
        <p class="crumbs"><a href="/">Overview</a> / Sources</p>
        <h1>${options.name} <span id="source-status"></span></h1>
        <p class="muted"><span>${options.type}</span> · <span id="source-rows">…</span> rows · last sync <span id="source-last-sync">…</span></p>
      </div>
      ${actions}
    </div>
    <p id="source-message" class="notice" role="status" hidden></p>
    ${files}
    ${objects}
    <div class="columns">
      <section class="card" aria-labelledby="tables-title">
        <h2 id="tables-title">Tables</h2>
        <table id="tables"><caption class="visually-hidden">Tables loaded from this source</caption>
          <thead><tr><th scope="col">Table</th><th scope="col" class="number">Rows</th></tr></thead><tbody></tbody></table>
      </section>
      <section class="card" aria-labelledby="config-title">
        <h2 id="config-title">Configuration</h2>
        <p class="muted">Credentials are named by their environment variable, never shown.</p>
        <dl id="config" class="config"></dl>
      </section>
    </div>
    <section class="card" aria-labelledby="history-title">
      <h2 id="history-title">Sync history</h2>
      <div class="scroll"><table id="history"><caption class="visually-hidden">Past syncs, newest first</caption>
        <thead><tr><th scope="col">Finished</th><th scope="col">Result</th><th scope="col" class="number">Duration</th><th scope="col" class="number">Rows</th><th scope="col" class="phone-hide">Kind</th><th scope="col" class="phone-hide">Ran on</th></tr></thead><tbody></tbody></table></div>
    </section>
    <section class="card" aria-labelledby="logs-title">
      <h2 id="logs-title">Logs</h2>
      <ul id="source-logs" class="activity" aria-live="polite"></ul>
    </section>
    ${removal}`,
  });
}
