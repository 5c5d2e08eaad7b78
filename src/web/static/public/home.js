// The overview: sources with live status, models at a glance, recent activity, health warnings.
import { api, badge, el, emptyRow, formatAge, formatNumber, formatTime, say } from './api.js';
import { jobNotice, startSync } from './job-notice.js';
import { debounced, onEvent } from './live.js';
import { activityItem } from './log-list.js';

const table = document.getElementById('sources');
const body = table.querySelector('tbody');
const message = document.getElementById('sources-message');
const activity = document.getElementById('activity');
const warnings = document.getElementById('health-warnings');
const modelsSummary = document.getElementById('models-summary');
const modelsFailing = document.getElementById('models-failing');
const canSync = table.dataset.canSync === 'yes';
const jobs = jobNotice(message);

function syncButton(source) {
  return el('button', {
    type: 'button', className: 'secondary', textContent: 'Sync', ariaLabel: `Sync ${source.name}`, disabled: source.status === 'syncing',
    onclick: async (event) => {
      event.currentTarget.disabled = true;
      await startSync(jobs, source.name);
    },
  });
}

async function loadSources() {
  const sources = await api('GET', '/api/sources');
  if (sources.length === 0) {
    body.replaceChildren(emptyRow(7, 'No sources yet: add one with Add source, "quarry source add" or in .quarry/sources.yml.'));
    return;
  }
  body.replaceChildren(...sources.map((source) => el('tr', { dataset: { source: source.name } },
    el('th', { scope: 'row' }, el('a', { href: `/sources/${encodeURIComponent(source.name)}` }, source.name)),
    el('td', { className: 'phone-hide' }, source.type),
    el('td', {}, source.enabled ? badge(source.status) : badge('disabled')),
    el('td', { className: 'number' }, formatNumber(source.row_count)),
    el('td', { className: 'phone-hide' }, formatAge(source.freshness.days_old)),
    el('td', { className: 'phone-hide' }, formatTime(source.last_sync)),
    el('td', {}, canSync && source.enabled ? syncButton(source) : undefined),
  )));
}

async function loadActivity() {
  const entries = await api('GET', '/api/logs?limit=8');
  activity.replaceChildren(...entries.map(activityItem));
  if (entries.length === 0) activity.replaceChildren(el('li', { className: 'muted' }, 'Nothing has happened yet.'));
}

async function loadModels() {
  const { models } = await api('GET', '/api/transform/models');
  const counts = Object.groupBy(models, (model) => model.status);
  const parts = ['success', 'error', 'skipped', 'running', 'not_run']
    .filter((status) => counts[status]).map((status) => `${counts[status].length} ${status.replace('_', ' ')}`);
  modelsSummary.textContent = models.length === 0
    ? 'No models yet: add SQL files under transform/models.'
    : `${models.length} model${models.length === 1 ? '' : 's'}: ${parts.join(', ')}.`;
  modelsFailing.replaceChildren(...models.filter((model) => model.status === 'error')
    .map((model) => el('li', { className: 'level-error' }, `${model.name} failed in its last run`)));
}

async function loadHealth() {
  const health = await api('GET', '/api/health/platform');
  const items = [...health.critical_issues, ...health.warnings];
  warnings.querySelector('ul').replaceChildren(...items.map((text) => el('li', {}, text)));
  warnings.hidden = items.length === 0;
}

const refresh = debounced(() => {
  void Promise.all([loadSources(), loadActivity(), loadModels(), loadHealth()]).catch((error) => { say(message, error.message); });
}, 0);

refresh();
onEvent(refresh);
