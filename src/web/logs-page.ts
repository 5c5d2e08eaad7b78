import { html } from './html.ts';
import { layout, type PageUser } from './layout.ts';

/** The activity log with level and source filters and a live tail. */
export function renderLogsPage(options: { user: PageUser; sources: readonly string[] }): string {
  return layout({
    title: 'Logs',
    user: options.user,
    current: '/logs',
    scripts: ['/static/public/logs.js'],
    body: html`<div class="page-head"><h1>Logs</h1><p class="muted">What syncs, uploads and model runs did, newest first.</p></div>
    <p id="logs-message" class="notice" role="status" hidden></p>
    <section class="card" aria-labelledby="filters-title">
      <h2 id="filters-title" class="visually-hidden">Filters</h2>
      <form id="log-filters" class="inline">
        <div><label for="log-level">Level</label><select id="log-level" name="level">
          <option value="">All levels</option><option>INFO</option><option>SUCCESS</option><option>WARNING</option><option>ERROR</option>
        </select></div>
        <div><label for="log-source">Source</label><select id="log-source" name="source">
          <option value="">All sources</option>${options.sources.map((name) => html`<option>${name}</option>`)}
        </select></div>
        <div class="check"><input type="checkbox" id="log-tail" name="tail" checked><label for="log-tail">Live tail</label></div>
      </form>
      <p id="log-count" class="muted small" aria-live="polite"></p>
      <ul id="log-lines" class="activity log-lines"></ul>
    </section>`,
  });
}
