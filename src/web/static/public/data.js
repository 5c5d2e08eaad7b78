// The data page: the warehouse's tables grouped by layer, a search over names and descriptions, and the SQL editor.
import { api, el, guarded } from './api.js';
import { startQueryPanel } from './query-panel.js';

const LAYERS = [['raw', 'Raw (as loaded)'], ['staging', 'Staging'], ['marts', 'Marts']];
const list = document.getElementById('table-list');
const search = document.getElementById('table-search');
const message = document.getElementById('data-message');
let tables = [];

const tableHref = (table) => `/data/${encodeURIComponent(table.schema)}/${encodeURIComponent(table.name)}`;

function tableItem(table, why) {
  return el('li', {},
    el('a', { href: tableHref(table) }, `${table.schema}.${table.name}`),
    el('span', { className: 'muted small' }, ` ${table.kind ?? 'table'} · ${Number(table.row_count).toLocaleString()} rows${table.column_count === null ? '' : ` · ${table.column_count} columns`}`),
    why ? el('div', { className: 'muted small' }, why) : undefined);
}

function showAll() {
  if (tables.length === 0) {
    list.replaceChildren(el('p', { className: 'muted' }, 'Nothing loaded yet: sync a source from the overview.'));
    return;
  }
  list.replaceChildren(...LAYERS.flatMap(([layer, title]) => {
    const inLayer = tables.filter((table) => table.layer === layer);
    if (inLayer.length === 0) return [];
    return [el('h3', {}, title), el('ul', { className: 'table-list' }, ...inLayer.map((table) => tableItem(table, table.description)))];
  }));
}

async function showMatches(text) {
  const { results } = await api('GET', `/api/catalog/search?q=${encodeURIComponent(text)}`);
  if (results.length === 0) {
    list.replaceChildren(el('p', { className: 'muted' }, `Nothing matches "${text}".`));
    return;
  }
  const why = { table: () => 'name', column: (hit) => `column ${hit.column}`, description: () => 'description' };
  list.replaceChildren(el('ul', { className: 'table-list' }, ...results.map((hit) => {
    const table = tables.find((candidate) => candidate.schema === hit.schema && candidate.name === hit.name) ?? { ...hit, row_count: 0, column_count: null };
    return tableItem(table, `matches its ${why[hit.match](hit)}`);
  })));
}

let typing;
search.addEventListener('input', () => {
  clearTimeout(typing);
  typing = setTimeout(() => guarded(message, () => (search.value.trim() === '' ? Promise.resolve(showAll()) : showMatches(search.value.trim()))), 200);
});

guarded(message, async () => {
  ({ tables } = await api('GET', '/api/catalog/tables'));
  showAll();
});
startQueryPanel();
