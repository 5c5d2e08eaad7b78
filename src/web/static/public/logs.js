// The logs page: filter by level and source; with live tail on, new lines arrive as events happen.
import { api, el, say } from './api.js';
import { debounced, onEvent } from './live.js';
import { activityItem } from './log-list.js';

const LIMIT = 500;
const level = document.getElementById('log-level');
const source = document.getElementById('log-source');
const tail = document.getElementById('log-tail');
const lines = document.getElementById('log-lines');
const count = document.getElementById('log-count');
const message = document.getElementById('logs-message');

async function load() {
  const path = source.value ? `/api/sources/${encodeURIComponent(source.value)}/logs?limit=${LIMIT}` : `/api/logs?limit=${LIMIT}`;
  const entries = (await api('GET', path)).filter((entry) => !level.value || entry.level === level.value);
  lines.replaceChildren(...(entries.length === 0 ? [el('li', { className: 'muted' }, 'No log lines match.')] : entries.map(activityItem)));
  count.textContent = `${entries.length} line${entries.length === 1 ? '' : 's'}${tail.checked ? ' · live' : ' · paused'}`;
}

const refresh = debounced(() => { void load().catch((error) => { say(message, error.message); }); }, 100);

for (const control of [level, source, tail]) control.addEventListener('change', refresh);
document.getElementById('log-filters').addEventListener('submit', (event) => { event.preventDefault(); });
refresh();
onEvent(() => { if (tail.checked) refresh(); });
