// A source's page: live status, Sync and Full refresh, Disable/Enable, Edit and Delete, CSV files with drag-and-drop upload, history, logs.
import { api, badge, el, emptyRow, formatBytes, formatDuration, formatNumber, formatTime, say } from './api.js';
import { setUpUploads } from './csv-upload.js';
import { followSync, jobNotice, startSync } from './job-notice.js';
import { debounced, onEvent, onProgress } from './live.js';
import { activityItem } from './log-list.js';

const root = document.getElementById('source');
const name = root.dataset.source;
const canUpload = root.dataset.canUpload === 'yes';
const base = `/api/sources/${encodeURIComponent(name)}`;
const message = document.getElementById('source-message');
const filesTable = document.getElementById('files');
const objectsTable = document.getElementById('objects');
const syncButtons = [document.getElementById('sync'), document.getElementById('full-refresh')].filter(Boolean);
const jobs = jobNotice(message);

async function loadSummary() {
  const source = (await api('GET', '/api/sources')).find((candidate) => candidate.name === name);
  if (!source) return;
  document.getElementById('source-status').replaceChildren(source.enabled ? badge(source.status) : badge('disabled'));
  document.getElementById('source-rows').textContent = formatNumber(source.row_count);
  document.getElementById('source-last-sync').textContent = source.last_sync ? formatTime(source.last_sync) : 'never';
  for (const button of syncButtons) button.disabled = source.status === 'syncing' || !source.enabled;
}

/** Nested configuration sections become dotted keys, so every setting reads as one line. */
function flatten(value, prefix = '') {
  const shown = (item) => (item !== null && typeof item === 'object' ? JSON.stringify(item) : String(item));
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [[prefix, (Array.isArray(value) ? value.map(shown).join(', ') : String(value)) || '—']];
  return Object.entries(value).flatMap(([key, inner]) => flatten(inner, prefix ? `${prefix}.${key}` : key));
}

async function loadDetails() {
  const details = await api('GET', `${base}/details`);
  document.getElementById('tables').querySelector('tbody').replaceChildren(...(details.tables.length === 0
    ? [emptyRow(2, 'No tables loaded yet.')]
    : details.tables.map((table) => el('tr', {}, el('td', {}, el('code', {}, `${table.schema}.${table.name}`)), el('td', { className: 'number' }, formatNumber(table.row_count))))));
  document.getElementById('config').replaceChildren(...flatten(details.config).flatMap(([key, value]) => [el('dt', {}, key), el('dd', {}, value)]));
  document.getElementById('history').querySelector('tbody').replaceChildren(...(details.history.length === 0
    ? [emptyRow(6, 'Never synced.')]
    : details.history.map((entry) => el('tr', {},
      el('td', {}, formatTime(entry.timestamp)),
      el('td', {}, badge(entry.status), ...(entry.files_failed > 0 ? [' ', el('span', { className: 'status status-warning' }, `${entry.files_failed} file(s) unreadable`)] : [])),
      el('td', { className: 'number' }, formatDuration(entry.duration_seconds)),
      el('td', { className: 'number' }, formatNumber(entry.rows_processed)),
      el('td', { className: 'phone-hide' }, entry.full_refresh ? 'full refresh' : 'incremental'),
      el('td', { className: 'phone-hide' }, entry.worker ?? '')))));
}

async function loadLogs() {
  const entries = await api('GET', `${base}/logs?limit=50`);
  document.getElementById('source-logs').replaceChildren(...(entries.length === 0 ? [el('li', { className: 'muted' }, 'No log lines yet.')] : entries.map(activityItem)));
}

function deleteButton(file) {
  return el('button', {
    type: 'button', className: 'danger', textContent: 'Delete', ariaLabel: `Delete ${file.filename}`,
    onclick: async () => {
      if (!window.confirm(`Delete ${file.filename}? Its rows leave the warehouse at the next sync.`)) return;
      try {
        const reply = await api('DELETE', `${base}/csv-files?file_path=${encodeURIComponent(file.path)}`);
        say(message, reply.message, 'ok');
      } catch (error) {
        say(message, error.message);
      }
    },
  });
}

async function loadFiles() {
  if (!filesTable) return;
  const listing = await api('GET', `${base}/csv-files`);
  document.getElementById('files-where').textContent = `${listing.files_on_disk} on disk, ${listing.files_loaded} loaded, from ${listing.directory} (${listing.file_pattern})`;
  filesTable.querySelector('tbody').replaceChildren(...(listing.files.length === 0
    ? [emptyRow(6, 'No files yet.')]
    : listing.files.map((file) => el('tr', { dataset: { file: file.filename } },
      el('th', { scope: 'row' }, file.filename),
      el('td', { className: 'number' }, file.on_disk ? formatBytes(file.size) : '—'),
      el('td', { className: 'phone-hide' }, file.on_disk ? formatTime(file.modified) : 'deleted'),
      el('td', {}, file.loaded || file.status === 'unreadable' ? badge(file.status) : badge('not_loaded')),
      el('td', { className: 'number' }, formatNumber(file.rows_loaded)),
      el('td', { className: 'actions-cell' }, canUpload && file.on_disk ? deleteButton(file) : undefined)))));
}

/** A source over object storage: its objects as its last sync listed them, each with how it loaded. */
async function loadObjects() {
  if (!objectsTable) return;
  const listing = await api('GET', `${base}/objects`);
  const within = `${listing.prefix}/`;
  objectsTable.querySelector('tbody').replaceChildren(...(listing.objects.length === 0
    ? [emptyRow(5, 'No objects yet: sync to list them.')]
    : listing.objects.map((object) => el('tr', { dataset: { object: object.url } },
      el('th', { scope: 'row' }, object.url.startsWith(within) ? object.url.slice(within.length) : object.url),
      el('td', { className: 'number' }, formatBytes(object.size)),
      el('td', { className: 'phone-hide' }, formatTime(object.modified)),
      el('td', { title: object.error ?? '' }, badge(object.status)),
      el('td', { className: 'number' }, formatNumber(object.rows_loaded))))));
}

function setUpDropZone() {
  const zone = document.getElementById('drop-zone');
  if (!zone) return;
  setUpUploads(zone, {
    url: () => `${base}/upload-csv?trigger_sync=true`,
    onUploaded: (reply) => {
      if (reply.auto_sync) followSync(jobs, name, `Uploaded ${reply.file_name}`);
      else say(message, reply.message, 'ok');
    },
    onRefused: (text) => { say(message, text); },
  });
}

function syncOnClick(fullRefresh) {
  return async () => {
    if (fullRefresh && !window.confirm(`Reload every table of ${name} from scratch? Incremental positions are forgotten.`)) return;
    for (const button of syncButtons) button.disabled = true;
    if (!await startSync(jobs, name, { fullRefresh })) await loadSummary();
  };
}

/** Disables or enables the source in sources.yml, with the version just read so a hand edit meanwhile is refused. */
async function toggleEnabled(event) {
  const button = event.currentTarget;
  const enable = button.dataset.enabled !== 'yes';
  button.disabled = true;
  try {
    const { version } = await api('GET', '/api/sources-file');
    await api('PATCH', base, { enabled: enable, version });
    window.location.reload();
  } catch (error) {
    say(message, error.message);
    button.disabled = false;
  }
}

/** Removes the source after asking; the boxes say whether its tables and credentials go too. */
async function deleteSource(event) {
  const dropTables = document.getElementById('drop-tables').checked;
  const removeCredentials = document.getElementById('remove-credentials').checked;
  const also = [dropTables ? 'its warehouse tables are dropped' : 'its warehouse tables stay', removeCredentials ? 'its credentials leave .env' : 'its credentials stay in .env'];
  if (!window.confirm(`Delete ${name} from sources.yml? ${also.join('; ')}.`)) return;
  const button = event.currentTarget;
  button.disabled = true;
  try {
    const { version } = await api('GET', '/api/sources-file');
    const query = new URLSearchParams({ version, drop_tables: String(dropTables), remove_credentials: String(removeCredentials) });
    await api('DELETE', `${base}?${query}`);
    window.location.assign('/');
  } catch (error) {
    say(message, error.message);
    button.disabled = false;
  }
}

document.getElementById('sync')?.addEventListener('click', syncOnClick(false));
document.getElementById('delete-source')?.addEventListener('click', (event) => { void deleteSource(event); });
document.getElementById('toggle-enabled')?.addEventListener('click', (event) => { void toggleEnabled(event); });
document.getElementById('full-refresh')?.addEventListener('click', syncOnClick(true));
setUpDropZone();

const refresh = debounced(() => {
  void Promise.all([loadSummary(), loadDetails(), loadFiles(), loadObjects(), loadLogs()]).catch((error) => { say(message, error.message); });
}, 0);
refresh();
onEvent((event) => {
  if (event.type === 'reconnected' || event.source === name) refresh();
});
onProgress((event) => {
  if (event.source !== name) return;
  document.getElementById('source-status').replaceChildren(badge('syncing'), ` ${formatNumber(event.rows)} rows read`);
});
