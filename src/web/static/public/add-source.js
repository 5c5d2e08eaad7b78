// Adding a source: category → type → fields built from the type's schema (GET /api/source-types); credentials in
// password fields, sent once and written to .env only; saved with the sources.yml version read, then tested and
// synced with its progress live.
import { api, el, formatNumber, say } from './api.js';
import { onEvent, onProgress } from './live.js';

const form = document.getElementById('add-source-form');
const message = document.getElementById('add-source-message');
const categorySelect = document.getElementById('source-category');
const typeSelect = document.getElementById('source-type');
const typeHelp = document.getElementById('type-help');
const nameInput = document.getElementById('source-name');
const fieldset = document.getElementById('source-fields');
const afterSave = document.getElementById('after-save');
const testResult = document.getElementById('test-result');
const syncProgress = document.getElementById('sync-progress');
const syncResult = document.getElementById('sync-result');
const syncButton = document.getElementById('sync-source');

let types = [];
let version = '';
let savedName = '';

const label = (name) => name.replaceAll('_', ' ');
const fieldId = (name) => `field-${name}`;

/** The inputs of one field, by its kind; each carries data-field (and data-part for credentials and endpoints). */
function fieldInputs(field) {
  const id = fieldId(field.name);
  const shown = field.default === undefined || typeof field.default === 'object' ? '' : String(field.default);
  const required = field.required ? ' (required)' : '';
  switch (field.kind) {
    case 'boolean':
      return [el('div', { className: 'check' },
        el('input', { type: 'checkbox', id, checked: field.default === true, dataset: { field: field.name } }),
        el('label', { htmlFor: id }, label(field.name)))];
    case 'choice':
      return [el('label', { htmlFor: id }, label(field.name)),
        el('select', { id, dataset: { field: field.name } }, ...field.options.map((option) => el('option', { value: option, selected: option === field.default }, option)))];
    case 'choices':
      return [el('fieldset', {}, el('legend', {}, label(field.name)), ...field.options.map((option) => el('div', { className: 'check' },
        el('input', { type: 'checkbox', id: `${id}-${option}`, value: option, checked: Array.isArray(field.default) && field.default.includes(option), dataset: { field: field.name } }),
        el('label', { htmlFor: `${id}-${option}` }, option))))];
    case 'env': {
      const suggested = typeof field.default === 'string' ? field.default : '';
      return [el('label', { htmlFor: id }, `${label(field.name)}: the environment variable holding it${required}`),
        el('input', { id, value: suggested, placeholder: 'e.g. MY_API_TOKEN', autocomplete: 'off', dataset: { field: field.name, part: 'variable' } }),
        el('label', { htmlFor: `${id}-value` }, 'Its value (saved in .env, never in sources.yml; leave blank if already set)'),
        el('input', { id: `${id}-value`, type: 'password', autocomplete: 'new-password', dataset: { field: field.name, part: 'secret' } })];
    }
    case 'items':
      return [el('fieldset', {}, el('legend', {}, `${label(field.name)}: the first one`),
        ...[['path', 'path (relative to the API root)'], ['data_selector', 'where the records sit in the response, e.g. data (blank: found automatically)'],
          ['primary_key', 'primary key column (blank: none; records are replaced each sync)']]
          .flatMap(([part, text]) => [el('label', { htmlFor: `${id}-${part}` }, text), el('input', { id: `${id}-${part}`, autocomplete: 'off', dataset: { field: field.name, part } })]))];
    case 'mapping':
      return [el('label', { htmlFor: id }, `${label(field.name)} as JSON, e.g. {"key": "value"}${required}`), el('textarea', { id, rows: 2, dataset: { field: field.name } })];
    default:
      return [el('label', { htmlFor: id }, `${label(field.name)}${field.kind === 'list' ? ', comma-separated' : ''}${required}`),
        el('input', { id, type: field.kind === 'number' ? 'number' : 'text', value: shown, autocomplete: 'off', dataset: { field: field.name } })];
  }
}

function currentType() {
  return types.find((type) => type.key === typeSelect.value);
}

function showFields() {
  const type = currentType();
  typeHelp.textContent = type ? `Signs in with: ${type.auth_type ?? 'nothing'}.` : '';
  fieldset.replaceChildren(el('legend', {}, 'Settings'), ...(type?.fields ?? []).flatMap(fieldInputs));
}

function showTypes() {
  const addable = types.filter((type) => type.category === categorySelect.value && type.addable);
  typeSelect.replaceChildren(...addable.map((type) => el('option', { value: type.key }, type.key)));
  showFields();
}

/** One field's value as the section wants it, or undefined when left blank or at its default. */
function valueOf(field, secrets) {
  const inputs = [...fieldset.querySelectorAll(`[data-field="${field.name}"]`)];
  const [input] = inputs;
  switch (field.kind) {
    case 'boolean': return input.checked === (field.default === true) ? undefined : input.checked;
    case 'choice': return input.value === field.default ? undefined : input.value;
    case 'choices': {
      const chosen = inputs.filter((box) => box.checked).map((box) => box.value);
      const defaults = Array.isArray(field.default) ? field.default : [];
      return chosen.length === defaults.length && chosen.every((value) => defaults.includes(value)) ? undefined : chosen;
    }
    case 'env': {
      const variable = inputs.find((part) => part.dataset.part === 'variable').value.trim();
      const secret = inputs.find((part) => part.dataset.part === 'secret').value;
      if (variable !== '' && secret !== '') secrets[variable] = secret;
      return variable === '' || variable === field.default ? undefined : variable;
    }
    case 'items': {
      const item = Object.fromEntries(inputs.map((part) => [part.dataset.part, part.value.trim()]).filter(([, value]) => value !== ''));
      return item.path === undefined ? undefined : [item];
    }
    case 'mapping': return input.value.trim() === '' ? undefined : JSON.parse(input.value);
    case 'list': {
      const items = input.value.split(',').map((item) => item.trim()).filter((item) => item !== '');
      return items.length === 0 ? undefined : items;
    }
    case 'number': return input.value === '' || Number(input.value) === field.default ? undefined : Number(input.value);
    default: return input.value.trim() === '' || input.value.trim() === field.default ? undefined : input.value.trim();
  }
}

async function save(event) {
  event.preventDefault();
  const type = currentType();
  if (!type) return;
  const secrets = {};
  const config = {};
  try {
    for (const field of type.fields) {
      const value = valueOf(field, secrets);
      if (value !== undefined) config[field.name] = value;
    }
  } catch {
    say(message, 'A JSON field could not be read: check its braces and quotes.');
    return;
  }
  try {
    const reply = await api('POST', '/api/sources', { name: nameInput.value.trim(), type: type.key, config, secrets, version });
    version = reply.version;
    savedName = reply.source_name;
    for (const secret of fieldset.querySelectorAll('[data-part="secret"]')) { secret.value = ''; secret.placeholder = 'set'; }
    say(message, reply.message, 'ok');
    document.getElementById('after-save-text').textContent = `${savedName} is in sources.yml. Test that Quarry can read it, then sync it.`;
    document.getElementById('source-link').href = `/sources/${encodeURIComponent(savedName)}`;
    afterSave.hidden = false;
    form.querySelector('#save-source').disabled = true;
  } catch (error) {
    say(message, error.message);
  }
}

async function testSource() {
  const button = document.getElementById('test-source');
  button.disabled = true;
  testResult.hidden = true;
  try {
    const reply = await api('POST', `/api/sources/${encodeURIComponent(savedName)}/test`);
    say(testResult, reply.success ? `Connection test passed: ${reply.message}` : `Connection test failed: ${reply.message}`, reply.success ? 'ok' : 'error');
  } catch (error) {
    say(testResult, error.message);
  } finally {
    button.disabled = false;
  }
}

async function syncSource() {
  syncButton.disabled = true;
  syncResult.hidden = true;
  syncProgress.hidden = false;
  syncProgress.textContent = 'Sync started…';
  try {
    await api('POST', `/api/sources/${encodeURIComponent(savedName)}/sync`, { full_refresh: false });
  } catch (error) {
    say(syncResult, error.message);
    syncButton.disabled = false;
  }
}

onProgress((event) => {
  if (event.source !== savedName) return;
  syncProgress.textContent = `Reading: ${formatNumber(event.rows)} rows in ${formatNumber(event.pages)} page(s)`;
});
onEvent((event) => {
  if (event.source !== savedName) return;
  if (event.type === 'sync_completed') say(syncResult, `Synced: ${formatNumber(event.rows)} rows loaded`, 'ok');
  if (event.type === 'sync_failed') say(syncResult, `The sync failed: ${event.error}`);
  if (event.type === 'sync_completed' || event.type === 'sync_failed') syncButton.disabled = false;
});

async function start() {
  const [catalog, file] = await Promise.all([api('GET', '/api/source-types'), api('GET', '/api/sources-file')]);
  types = catalog.types;
  version = file.version;
  const categories = catalog.categories.filter((category) => types.some((type) => type.category === category && type.addable));
  categorySelect.replaceChildren(...categories.map((category) => el('option', { value: category }, category)));
  document.getElementById('not-addable').replaceChildren(...types.filter((type) => !type.addable)
    .map((type) => el('li', {}, el('code', {}, type.key), ` — ${type.reason}`)));
  showTypes();
}

categorySelect.addEventListener('change', showTypes);
typeSelect.addEventListener('change', showFields);
form.addEventListener('submit', (event) => { void save(event); });
document.getElementById('test-source').addEventListener('click', () => { void testSource(); });
syncButton.addEventListener('click', () => { void syncSource(); });
start().catch((error) => { say(message, error.message); });
