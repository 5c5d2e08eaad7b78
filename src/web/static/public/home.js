// The overview: sources with live status (WebSocket), a Sync button for those allowed, recent activity.
import { api, el, formatTime, say } from './api.js';

const table = document.getElementById('sources');
const body = table.querySelector('tbody');
const message = document.getElementById('sources-message');
const activity = document.getElementById('activity');
const canSync = table.dataset.canSync === 'yes';

async function loadSources() {
  const sources = await api('GET', '/api/sources');
  if (sources.length === 0) {
    body.replaceChildren(el('tr', {}, el('td', { colSpan: 6, className: 'muted' }, 'No sources yet: add one to .quarry/sources.yml.')));
    return;
  }
  body.replaceChildren(...sources.map((source) => el('tr', { dataset: { source: source.name } },
    el('th', { scope: 'row' }, source.name),
    el('td', {}, source.type),
    el('td', {}, el('span', { className: `status status-${source.status}` }, source.status.replace('_', ' '))),
    el('td', {}, source.row_count.toLocaleString()),
    el('td', {}, formatTime(source.last_sync)),
    el('td', {}, canSync && source.enabled
      ? el('button', {
        type: 'button', className: 'secondary', textContent: 'Sync', ariaLabel: `Sync ${source.name}`, disabled: source.status === 'syncing',
        onclick: async () => {
          try {
            await api('POST', `/api/sources/${encodeURIComponent(source.name)}/sync`, { full_refresh: false });
          } catch (error) {
            say(message, error.message);
          }
        },
      })
      : undefined),
  )));
}

async function loadActivity() {
  const entries = await api('GET', '/api/logs?limit=8');
  activity.replaceChildren(...entries.map((entry) => el('li', { className: `level-${entry.level.toLowerCase()}` },
    el('time', { dateTime: entry.timestamp }, formatTime(entry.timestamp)), ' ', el('span', {}, entry.message))));
}

function refresh() {
  void Promise.all([loadSources(), loadActivity()]).catch((error) => { say(message, error.message); });
}

let retryMs = 1000;
function connect() {
  const socket = new WebSocket(`${window.location.protocol === 'https:' ? 'wss' : 'ws'}://${window.location.host}/ws`);
  socket.addEventListener('open', () => { retryMs = 1000; });
  socket.addEventListener('message', () => { refresh(); });
  socket.addEventListener('close', (event) => {
    if (event.code === 4401) {
      window.location.assign('/login?error=session_expired');
      return;
    }
    setTimeout(connect, retryMs);
    retryMs = Math.min(retryMs * 2, 30_000);
  });
}

refresh();
connect();
