// The health page: /api/health/platform with problems first, /api/status and /api/watcher/status beside it.
import { api, badge, el, formatTime, say } from './api.js';
import { debounced, onEvent } from './live.js';

const message = document.getElementById('health-message');
const SERVICE_LABELS = { api: 'API', warehouse: 'Warehouse', dashboard: 'Dashboards', transform_docs: 'Transformation docs' };

function describe(list, pairs) {
  document.getElementById(list).replaceChildren(...pairs.flatMap(([term, value]) => [el('dt', {}, term), el('dd', {}, value)]));
}

function failures(list, entries, subject) {
  document.getElementById(list).replaceChildren(...(entries.length === 0
    ? [el('li', { className: 'muted' }, 'None.')]
    : entries.map((entry) => el('li', { className: 'level-error' },
      el('time', { dateTime: entry.timestamp }, formatTime(entry.timestamp)), ' ', el('strong', {}, entry[subject]), ': ', el('span', {}, entry.error)))));
}

async function load() {
  const [health, status, watcher] = await Promise.all([api('GET', '/api/health/platform'), api('GET', '/api/status'), api('GET', '/api/watcher/status')]);
  document.getElementById('health-status').replaceChildren(badge(health.status));
  document.getElementById('health-checked').textContent = formatTime(health.timestamp);
  const problems = document.getElementById('health-problems');
  problems.querySelector('ul').replaceChildren(
    ...health.critical_issues.map((text) => el('li', { className: 'level-error' }, el('strong', {}, 'Critical: '), text)),
    ...health.warnings.map((text) => el('li', {}, text)));
  problems.hidden = health.critical_issues.length + health.warnings.length === 0;
  document.getElementById('health-ok').hidden = !problems.hidden || health.sync_failures.length + health.transform_failures.length > 0;
  failures('sync-failures', health.sync_failures, 'source');
  failures('run-failures', health.transform_failures, 'model');
  const { database, disk } = health;
  describe('warehouse', [
    ['Size', `${database.size_mb} MB (${database.status})`],
    ['Tables', `${database.tables}: ${database.raw_tables} raw, ${database.staging_tables} staging, ${database.marts_tables} marts`],
    ['Disk', `${disk.free_gb} GB free of ${disk.total_gb} GB (${disk.status})`],
    ['Sources', `${health.enabled_sources} enabled of ${health.total_sources}`],
  ]);
  describe('services', [
    ['Version', status.service_version],
    ['Up for', status.uptime],
    ...Object.entries(status.services).map(([name, state]) => [SERVICE_LABELS[name] ?? name.replace('_', ' '), badge(state)]),
  ]);
  describe('watcher', [
    ['State', watcher.running ? badge('running') : badge('not_running')],
    ...(watcher.running ? [['Process', String(watcher.pid)]] : []),
    ['Sync on change', watcher.auto_sync_enabled ? 'on' : 'off'],
    ['Run models after', watcher.auto_transform_enabled ? 'on' : 'off'],
    ['Waits', `${watcher.debounce_seconds} s after the last change`],
    ['Patterns', watcher.watch_patterns.join(', ') || '—'],
    ['Folders', watcher.watch_directories.length === 0 ? '—' : el('span', {}, ...watcher.watch_directories.map((folder) => el('div', {}, folder)))],
  ]);
}

const refresh = debounced(() => { void load().catch((error) => { say(message, error.message); }); }, 200);
refresh();
onEvent(refresh);
setInterval(refresh, 30_000);
