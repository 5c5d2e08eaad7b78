// The models page: lineage graph, status and last error per model, Run with or without cascade; live over /ws.
import { api, badge, el, emptyRow, say } from './api.js';
import { drawLineage } from './lineage.js';
import { debounced, onEvent } from './live.js';

const table = document.getElementById('models');
const body = table.querySelector('tbody');
const canRun = table.dataset.canRun === 'yes';
const message = document.getElementById('models-message');
const lineage = document.getElementById('lineage');
/** The last error per model: from the health report at load, then from live `transform_run_failed` events. */
const lastErrors = new Map();
let selected;
let select = () => {};

function runButton(model, cascade) {
  return el('button', {
    type: 'button', className: cascade ? '' : 'secondary', textContent: cascade ? 'Run + downstream' : 'Run only',
    ariaLabel: cascade ? `Run ${model.name} and downstream models` : `Run only ${model.name}`, disabled: model.status === 'running',
    onclick: async () => {
      try {
        const reply = await api('POST', `/api/transform/models/${encodeURIComponent(model.name)}/run?cascade=${cascade}`);
        say(message, reply.message, 'ok');
      } catch (error) {
        say(message, error.message);
      }
    },
  });
}

function row(model) {
  const error = model.status === 'error' ? lastErrors.get(model.name) : undefined;
  return el('tr', { dataset: { model: model.name } },
    el('th', { scope: 'row' }, el('button', { type: 'button', className: 'link', textContent: model.name, ariaLabel: `Show ${model.name} in the lineage`, onclick: () => { selected = model.name; select(model.name); } }),
      model.description ? el('div', { className: 'muted small' }, model.description) : undefined,
      error ? el('div', { className: 'model-error' }, error) : undefined),
    el('td', { className: 'phone-hide' }, model.schema),
    el('td', { className: 'phone-hide' }, model.materialization),
    el('td', {}, badge(model.status)),
    el('td', { className: 'phone-hide' }, model.depends_on.join(', ') || '—'),
    el('td', { className: 'actions-cell' }, canRun ? runButton(model, true) : undefined, canRun ? runButton(model, false) : undefined));
}

async function loadErrors() {
  const health = await api('GET', '/api/health/platform');
  // Newest first, so the first error seen for a model is its latest.
  for (const failure of [...health.transform_failures].sort((a, b) => b.timestamp.localeCompare(a.timestamp))) {
    if (!lastErrors.has(failure.model)) lastErrors.set(failure.model, failure.error);
  }
}

async function load() {
  const { models } = await api('GET', '/api/transform/models');
  if (models.length === 0) {
    body.replaceChildren(emptyRow(6, 'No models yet: add SQL files under transform/models.'));
    lineage.replaceChildren(el('p', { className: 'muted' }, 'Nothing to draw yet.'));
    return;
  }
  body.replaceChildren(...models.map(row));
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
  if (event.type === 'reconnected' || event.type.startsWith('transform_run_')) refresh();
});
