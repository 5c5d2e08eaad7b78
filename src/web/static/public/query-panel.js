// The SQL editor panel of the data pages: run with the button or Ctrl+Enter, results or the error inline, CSV download.
import { api, el, say } from './api.js';
import { createSqlEditor } from './vendor/sql-editor.js';

const SHOWN_ROWS = 1000;

/**
 * A float as people write it: 12 significant digits, about what a spreadsheet shows, drop the binary noise a sum of
 * decimals leaves (19278348.309999935 reads 19278348.31); the cell's tooltip keeps every digit.
 */
const SHOWN_DIGITS = 12;

function numberText(value) {
  return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(SHOWN_DIGITS)));
}

function cellText(value) {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return numberText(value);
  return typeof value === 'string' ? value : JSON.stringify(value);
}

// A result's cell; a number shown shorter than it is keeps every digit in its tooltip.
function valueCell(value) {
  const text = cellText(value);
  return typeof value === 'number' && text !== String(value) ? el('td', { title: String(value) }, text) : el('td', {}, text);
}

/** Fills a table element with a result's columns and rows; nulls are marked, not blank. */
export function fillGrid(table, columns, rows) {
  table.querySelector('thead').replaceChildren(el('tr', {}, ...columns.map((column) => el('th', { scope: 'col', title: column.type }, column.name))));
  table.querySelector('tbody').replaceChildren(...rows.map((row) => el('tr', {}, ...row.map((value) => (
    value === null ? el('td', { className: 'null' }, 'null') : valueCell(value))))));
  table.hidden = false;
}

/** Sets up the panel rendered by data-page.ts; `tables` feeds completion ("schema.table" → column names). */
export function startQueryPanel(tables = {}) {
  const message = document.getElementById('query-message');
  const summary = document.getElementById('query-summary');
  const result = document.getElementById('query-result');
  const host = document.getElementById('sql-editor');
  const runButton = document.getElementById('run-query');
  const downloadButton = document.getElementById('download-query');
  const sql = () => editor.state.doc.toString();

  async function run() {
    message.hidden = true;
    runButton.disabled = true;
    summary.textContent = 'Running…';
    try {
      const answer = await api('POST', '/api/query', { sql: sql(), limit: SHOWN_ROWS });
      fillGrid(result, answer.columns, answer.rows);
      const rows = `${answer.row_count} row${answer.row_count === 1 ? '' : 's'}`;
      summary.textContent = `${rows}${answer.truncated ? ' (more not shown: download for all)' : ''} in ${answer.elapsed_ms} ms`;
    } catch (error) {
      summary.textContent = '';
      result.hidden = true;
      say(message, error.message);
    } finally {
      runButton.disabled = false;
    }
  }

  async function download() {
    message.hidden = true;
    const response = await fetch('/api/query', {
      method: 'POST',
      headers: { 'X-Requested-With': 'XMLHttpRequest', 'Content-Type': 'application/json', Accept: 'text/csv' },
      body: JSON.stringify({ sql: sql() }),
    });
    if (!response.ok) {
      const body = await response.json().catch(() => undefined);
      say(message, body?.detail ?? `Download failed (${response.status})`);
      return;
    }
    const link = el('a', { href: URL.createObjectURL(await response.blob()), download: 'query.csv' });
    document.body.append(link);
    link.click();
    link.remove();
    URL.revokeObjectURL(link.href);
  }

  const editor = createSqlEditor(host, { doc: host.dataset.sql, onRun: () => { void run(); }, tables });
  runButton.addEventListener('click', () => { void run(); });
  downloadButton.addEventListener('click', () => { void download(); });
  return { run, editor };
}
