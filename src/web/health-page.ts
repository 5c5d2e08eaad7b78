import { html } from './html.ts';
import { layout, type PageUser } from './layout.ts';

/** The platform health object made readable, problems first, then services and the file watcher. */
export function renderHealthPage(options: { user: PageUser }): string {
  return layout({
    title: 'Health',
    user: options.user,
    current: '/health',
    scripts: ['/static/public/health.js'],
    body: html`<div class="page-head"><h1>Health <span id="health-status"></span></h1><p class="muted">Checked <span id="health-checked">…</span></p></div>
    <p id="health-message" class="notice" role="status" hidden></p>
    <section id="health-problems" class="notice warning" aria-labelledby="problems-title" hidden>
      <h2 id="problems-title">Needs attention</h2>
      <ul></ul>
    </section>
    <section id="health-ok" class="notice ok" hidden><p>Everything looks fine: no failures or warnings.</p></section>
    <div class="columns">
      <section class="card" aria-labelledby="sync-failures-title">
        <h2 id="sync-failures-title">Sources whose last sync failed</h2>
        <ul id="sync-failures" class="activity"></ul>
      </section>
      <section class="card" aria-labelledby="run-failures-title">
        <h2 id="run-failures-title">Failed model runs (7 days)</h2>
        <ul id="run-failures" class="activity"></ul>
      </section>
    </div>
    <div class="columns">
      <section class="card" aria-labelledby="warehouse-title">
        <h2 id="warehouse-title">Warehouse and disk</h2>
        <dl id="warehouse" class="config"></dl>
      </section>
      <section class="card" aria-labelledby="services-title">
        <h2 id="services-title">Services</h2>
        <dl id="services" class="config"></dl>
        <p><a href="/dashboard/">Open Dashboards</a> · <a href="/transform-docs/">Transformation docs</a> · <a href="/api/docs">API docs</a></p>
      </section>
      <section class="card" aria-labelledby="watcher-title" id="watcher-section">
        <h2 id="watcher-title">File watcher</h2>
        <dl id="watcher" class="config"></dl>
      </section>
    </div>`,
  });
}
