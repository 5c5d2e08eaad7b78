// The models page: lineage graph, status, tests (with failing rows) and last error per model, Run with or without cascade; live over /ws.
import { api, badge, el, emptyRow, say } from './api.js';
import { drawLineage } from './lineage.js';
import { jobNotice, startRun } from './job-notice.js';
import { debounced, onEvent } from './live.js';

const table = document.getElementById('models');
const body = table.querySelector('tbody');
const canRun = table.dataset.canRun === 'yes';
const message = document.getElementById('models-message');
const lineage = document.getElementById('lineage');
const failingOnly = document.getElementById('failing-only');
/** The last error per model: from the health report at load, then from live `transform_run_failed` events. */
const lastErrors = new Map();
const jobs = jobNotice(message);
/** The models as last listed, whose lineage tells which models a cascading run builds. */
let knownModels = [];
let selected;
let select = () => {};

function runButton(model, cascade) {
  return el('button', {
    type: 'button', className: cascade ? '' : 'secondary', textContent: cascade ? 'Run + downstream' : 'Run only',
    ariaLabel: cascade ? `Run ${model.name} and downstream models` : `Run only ${model.name}`, disabled: model.status === 'running',
    onclick: () => startRun(jobs, knownModels, model.name, cascade),
  });
}

/** The model's tests in one badge: failing first, then warnings, then passes. */
function testBadge(tests) {
  const parts = [
    tests.failed > 0 ? `${tests.failed} failing` : undefined,
    tests.warned > 0 ? `${tests.warned} warning` : undefined,
    tests.passed > 0 ? `${tests.passed} passed` : undefined,
  ].filter(Boolean);
  if (parts.length === 0) return el('span', { className: 'muted' }, '—');
  const status = tests.failed > 0 ? 'error' : tests.warned > 0 ? 'skipped' : 'success';
  return el('span', { className: `status status-${status}`, dataset: { tests: status } }, parts.join(', '));
}

/** A failed or warned test: its message and the rows dbt stored as failing it. */
function failingTest(test) {
  const columns = [...new Set(test.failing_rows.flatMap((failing) => Object.keys(failing)))];
  const rows = test.failing_rows.length === 0 ? undefined : el('div', { className: 'scroll' }, el('table', { className: 'failing-rows' },
    el('caption', { className: 'visually-hidden' }, `Rows failing ${test.name}`),
    el('thead', {}, el('tr', {}, ...columns.map((column) => el('th', { scope: 'col' }, column)))),
    el('tbody', {}, ...test.failing_rows.map((failing) => el('tr', {}, ...columns.map((column) => el('td', {}, failing[column] === null ? 'null' : String(failing[column]))))))));
  const count = test.failures === null ? '' : ` (${test.failures} failing row${test.failures === 1 ? '' : 's'})`;
  return el('details', { className: test.status === 'warn' ? 'test-warn' : 'test-fail', dataset: { test: test.name } },
    el('summary', {}, `${test.status === 'warn' ? 'Warning' : 'Failed'}: ${test.name}${count}`),
    test.message ? el('div', { className: 'muted small' }, test.message) : undefined,
    rows,
    test.compiled_sql ? el('pre', { className: 'small' }, test.compiled_sql) : undefined);
}

function row(model, tests) {
  const error = model.status === 'error' ? lastErrors.get(model.name) : undefined;
  const failing = tests.filter((test) => test.model === model.name && ['fail', 'error', 'warn'].includes(test.status));
  return el('tr', { dataset: { model: model.name } },
    el('th', { scope: 'row' }, el('button', { type: 'button', className: 'link', textContent: model.name, ariaLabel: `Show ${model.name} in the lineage`, onclick: () => { selected = model.name; select(model.name); } }),
      model.description ? el('div', { className: 'muted small' }, model.description) : undefined,
      error ? el('div', { className: 'model-error' }, error) : undefined,
      ...failing.map(failingTest)),
    el('td', { className: 'phone-hide' }, model.schema),
    el('td', { className: 'phone-hide' }, model.materialization),
    el('td', {}, badge(model.status)),
    el('td', {}, testBadge(model.tests)),
    el('td', { className: 'phone-hide' }, model.depends_on.join(', ') || '—'),
    el('td', { className: 'actions-cell' }, canRun ? el('div', { className: 'actions' }, runButton(model, true), runButton(model, false)) : undefined));
}

async function loadErrors() {
  const health = await api('GET', '/api/health/platform');
  // Newest first, so the first error seen for a model is its latest; failing tests are shown from the tests list.
  const runFailures = health.transform_failures.filter((failure) => failure.test === undefined);
  for (const failure of runFailures.sort((a, b) => b.timestamp.localeCompare(a.timestamp))) {
    if (!lastErrors.has(failure.model)) lastErrors.set(failure.model, failure.error);
  }
}

async function load() {
  const [{ models }, { tests }] = await Promise.all([api('GET', '/api/transform/models'), api('GET', '/api/transform/tests')]);
  knownModels = models;
  if (models.length === 0) {
    body.replaceChildren(emptyRow(7, 'No models yet: add SQL files under transform/models.'));
    lineage.replaceChildren(el('p', { className: 'muted' }, 'Nothing to draw yet.'));
    return;
  }
  const shown = failingOnly.checked ? models.filter((model) => model.tests.failed > 0) : models;
  body.replaceChildren(...(shown.length === 0 ? [emptyRow(7, 'No model has a failing test.')] : shown.map((model) => row(model, tests))));
  select = drawLineage(lineage, models, (name) => { selected = name; });
  if (selected) select(selected);
  showScrollHint();
}

/** Says the graph scrolls sideways when it is wider than its card (on a phone, mostly). */
function showScrollHint() {
  document.getElementById('lineage-scroll-hint').hidden = lineage.scrollWidth <= lineage.clientWidth;
}
window.addEventListener('resize', debounced(showScrollHint, 200));

const refresh = debounced(() => { void load().catch((error) => { say(message, error.message); }); }, 100);

void loadErrors().catch(() => undefined).finally(refresh);
onEvent((event) => {
  if (event.type === 'transform_run_failed') lastErrors.set(event.model, event.error);
  if (event.type === 'reconnected' || event.type.startsWith('transform_')) refresh();
});
failingOnly.addEventListener('change', refresh);
