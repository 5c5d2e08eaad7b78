// A table page: columns with their profiles as small bars, lineage links, the first rows, the SQL editor on the table.
import { api, el, formatTime, guarded } from './api.js';
import { fillGrid, startQueryPanel } from './query-panel.js';

const page = document.getElementById('table-page');
const { schema, table } = page.dataset;
const message = document.getElementById('table-message');

function bar(fraction, label) {
  const fill = el('span', { className: 'bar-fill' });
  fill.style.width = `${Math.round(Math.min(1, Math.max(0, fraction)) * 100)}%`;
  return el('span', { className: 'bar', role: 'img', ariaLabel: label, title: label }, fill);
}

function percent(fraction) {
  return `${(fraction * 100).toFixed(fraction > 0 && fraction < 0.01 ? 2 : 0)}%`;
}

// A value on one line, cut with an ellipsis where it is long; the whole of it in the tooltip.
const clipped = (text, className = '') => el('span', { className: `cell-value ${className}`.trim(), title: text }, text);

// Counted where the table was small enough, else estimated: the estimate is marked, and says how it was made.
function distinct(column) {
  const count = Number(column.distinct_count).toLocaleString();
  return column.distinct_exact
    ? el('span', { title: 'Distinct non-null values, counted' }, count)
    : el('span', { className: 'estimate', title: "About this many distinct non-null values: the table is too large to count them in the profile's time, so this is DuckDB's HyperLogLog estimate (approx_unique), usually within a few percent" }, `≈ ${count}`);
}

function columnRow(column, rowCount) {
  const top = column.top_values.map((value) => el('li', {},
    bar(rowCount > 0 ? value.count / rowCount : 0, `${value.count} of ${rowCount}`),
    ' ', el('span', { className: 'top-value small' }, value.value ?? 'null'), el('span', { className: 'small' }, ` (${value.count})`)));
  return el('tr', {},
    el('th', { scope: 'row' }, column.name),
    el('td', {}, el('code', {}, column.type)),
    el('td', { className: 'nowrap' }, bar(column.null_fraction, `${percent(column.null_fraction)} null`), ` ${percent(column.null_fraction)}`),
    el('td', { className: 'phone-hide' }, distinct(column)),
    el('td', { className: 'phone-hide' }, clipped(column.min ?? '—')),
    el('td', { className: 'phone-hide' }, clipped(column.max ?? '—')),
    el('td', {}, top.length > 0 ? el('ul', { className: 'top-values' }, ...top) : '—'));
}

const tableLink = (name, layer) => el('a', { href: `/data/${encodeURIComponent(layer)}/${encodeURIComponent(name)}` }, name);

function lineage(detail) {
  const origin = detail.layer === 'raw'
    ? el('p', {}, 'Loaded from source ', el('a', { href: `/sources/${encodeURIComponent(detail.source ?? '')}` }, detail.source ?? '?'))
    : el('p', {}, 'Built by model ', el('a', { href: '/models' }, detail.model ?? detail.name),
      detail.upstream.length > 0 ? el('span', {}, ' from ', ...detail.upstream.flatMap((name, index) => [index > 0 ? ', ' : '', tableLink(name, layerOf(name))])) : undefined);
  const downstream = detail.downstream.length > 0
    ? el('p', {}, 'Used by ', ...detail.downstream.flatMap((name, index) => [index > 0 ? ', ' : '', tableLink(name, layerOf(name))]))
    : el('p', { className: 'muted' }, 'No model reads this table yet.');
  document.getElementById('table-lineage').replaceChildren(origin, downstream);
}

// Models live in staging or marts; the catalog list says which.
let layers = new Map();
const layerOf = (name) => layers.get(name) ?? 'marts';

guarded(message, async () => {
  const [detail, { tables }] = await Promise.all([
    api('GET', `/api/catalog/tables/${encodeURIComponent(schema)}/${encodeURIComponent(table)}`),
    api('GET', '/api/catalog/tables'),
  ]);
  layers = new Map(tables.filter((entry) => entry.layer !== 'raw').map((entry) => [entry.name, entry.schema]));
  const rows = Number(detail.row_count);
  document.getElementById('table-facts').textContent = [
    `${detail.layer} ${detail.kind ?? 'table'}`, `${rows.toLocaleString()} rows`, `${detail.columns.length} columns`, `changed ${formatTime(detail.updated_at)}`,
    detail.profiled_at ? `profiled ${formatTime(detail.profiled_at)}` : 'not profiled yet',
  ].join(' · ');
  document.querySelector('#table-columns tbody').replaceChildren(...detail.columns.map((column) => columnRow(column, rows)));
  fillGrid(document.getElementById('table-sample'), detail.sample.columns, detail.sample.rows);
  lineage(detail);
  startQueryPanel({ [`${schema}.${table}`]: detail.columns.map((column) => column.name) });
});
