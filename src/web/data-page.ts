import { html, type SafeHtml } from './html.ts';
import { layout, type PageUser } from './layout.ts';
import { quoteIdentifier } from '../warehouse/index.ts';

/** The SQL editor and its results, the same on the data page and each table page. */
function queryPanel(sql: string): SafeHtml {
  return html`<section class="card" aria-labelledby="query-title">
      <div class="split">
        <h2 id="query-title">Ask in SQL</h2>
        <p class="muted small">SELECT, WITH, SHOW, DESCRIBE or EXPLAIN; read-only. <kbd>Ctrl</kbd>+<kbd>Enter</kbd> runs it.</p>
      </div>
      <div id="sql-editor" class="sql-editor" data-sql="${sql}"></div>
      <div class="actions">
        <button type="button" id="run-query">Run</button>
        <button type="button" id="download-query" class="secondary">Download CSV</button>
      </div>
      <p id="query-message" class="notice" role="status" hidden></p>
      <p id="query-summary" class="muted small" aria-live="polite"></p>
      <div class="scroll"><table id="query-result" class="data-grid" hidden><caption class="visually-hidden">Query result</caption><thead></thead><tbody></tbody></table></div>
    </section>`;
}

/** The warehouse's tables by layer with a search, and the SQL editor. */
export function renderDataPage(options: { user: PageUser }): string {
  return layout({
    title: 'Data',
    user: options.user,
    current: '/data',
    scripts: ['/static/public/data.js'],
    body: html`<div class="page-head">
        <h1>Data</h1>
        <p class="muted">The warehouse's tables: <code>raw_*</code> as loaded from sources, <code>staging</code> and <code>marts</code> as built by models.</p>
      </div>
      <p id="data-message" class="notice" role="status" hidden></p>
      <section class="card" aria-labelledby="tables-title">
        <div class="split">
          <h2 id="tables-title">Tables</h2>
          <label class="search">Search tables, columns and descriptions <input type="search" id="table-search" autocomplete="off"></label>
        </div>
        <div id="table-list" aria-live="polite"><p class="muted">Loading…</p></div>
      </section>
      ${queryPanel('')}`,
  });
}

/** One table: columns with profiles, first rows, lineage, and the SQL editor opened on it. */
export function renderTablePage(options: { user: PageUser; schema: string; table: string }): string {
  const relation = `${options.schema}.${options.table}`;
  return layout({
    title: relation,
    user: options.user,
    current: '/data',
    scripts: ['/static/public/table.js'],
    body: html`<div class="page-head" id="table-page" data-schema="${options.schema}" data-table="${options.table}">
        <p class="crumbs"><a href="/data">Data</a> / ${options.schema}</p>
        <h1>${options.table}</h1>
        <p id="table-facts" class="muted">Loading…</p>
      </div>
      <p id="table-message" class="notice" role="status" hidden></p>
      <section class="card" aria-labelledby="columns-title">
        <h2 id="columns-title">Columns</h2>
        <div class="scroll"><table id="table-columns"><caption class="visually-hidden">Columns with their type and profile</caption>
          <thead><tr><th scope="col">Column</th><th scope="col">Type</th><th scope="col">Nulls</th><th scope="col" class="phone-hide">Distinct</th><th scope="col" class="phone-hide">Min</th><th scope="col" class="phone-hide">Max</th><th scope="col">Top values</th></tr></thead>
          <tbody></tbody></table></div>
      </section>
      <section class="card" aria-labelledby="lineage-title">
        <h2 id="lineage-title">Lineage</h2>
        <div id="table-lineage"></div>
      </section>
      <section class="card" aria-labelledby="sample-title">
        <h2 id="sample-title">First rows</h2>
        <div class="scroll"><table id="table-sample" class="data-grid"><caption class="visually-hidden">The table's first 50 rows</caption><thead></thead><tbody></tbody></table></div>
      </section>
      ${queryPanel(`SELECT *\nFROM ${quoteIdentifier(options.schema)}.${quoteIdentifier(options.table)}\nLIMIT 100`)}`,
  });
}
