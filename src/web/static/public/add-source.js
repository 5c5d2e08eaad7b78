// Adding or editing a source: category → type → fields built from the type's schema (GET /api/source-types), each
// with its help, rest_api's credential fields only for the chosen auth type; credentials in password fields, sent
// once and written to .env only (an existing one shows as set). The entered configuration can be tested before it
// is saved; it is saved with the sources.yml version read; a new source is then synced with its progress live.
import { api, el, formatNumber, say } from './api.js';
import { onEvent, onProgress } from './live.js';

const form = document.getElementById('add-source-form');
const editing = form.dataset.editing;
const message = document.getElementById('add-source-message');
const categorySelect = document.getElementById('source-category');
const typeSelect = document.getElementById('source-type');
const typeHelp = document.getElementById('type-help');
const nameInput = document.getElementById('source-name');
const fieldset = document.getElementById('source-fields');
const afterSave = document.getElementById('after-save');
const testButton = document.getElementById('test-source');
const testResult = document.getElementById('test-result');
const syncProgress = document.getElementById('sync-progress');
const syncResult = document.getElementById('sync-result');
const syncButton = document.getElementById('sync-source');

let types = [];
let version = '';
let savedName = '';
/** The edited source's section as sources.yml holds it; the form edits the first endpoint and keeps the others. */
let current = {};
let credentialsSet = new Set();

const label = (name) => name.replaceAll('_', ' ');
const fieldId = (name) => `field-${name}`;
const helpOf = (field) => (field.help ? el('p', { id: `${fieldId(field.name)}-help`, className: 'muted' }, field.help) : undefined);
const describedBy = (field) => (field.help ? { 'aria-describedby': `${fieldId(field.name)}-help` } : {});

/** What the form shows for a field: the saved value when editing, else the default. */
function shownValue(field) {
  return Object.hasOwn(current, field.name) ? current[field.name] : field.default;
}

/** The inputs of one field, by its kind; each carries data-field (and data-part for credentials and endpoints). */
function fieldInputs(field) {
  const id = fieldId(field.name);
  const value = shownValue(field);
  const required = field.required ? ' (required)' : '';
  const attributes = describedBy(field);
  switch (field.kind) {
    case 'boolean':
      return [el('div', { className: 'check' },
        el('input', { type: 'checkbox', id, checked: value === true, dataset: { field: field.name }, ...attributes }),
        el('label', { htmlFor: id }, label(field.name)))];
    case 'choice':
      return [el('label', { htmlFor: id }, label(field.name)),
        el('select', { id, dataset: { field: field.name }, ...attributes }, ...field.options.map((option) => el('option', { value: option, selected: option === value }, option)))];
    case 'choices':
      return [el('fieldset', {}, el('legend', {}, label(field.name)), ...field.options.map((option) => el('div', { className: 'check' },
        el('input', { type: 'checkbox', id: `${id}-${option}`, value: option, checked: Array.isArray(value) && value.includes(option), dataset: { field: field.name } }),
        el('label', { htmlFor: `${id}-${option}` }, option))))];
    case 'env': {
      const variable = typeof value === 'string' ? value : '';
      const isSet = credentialsSet.has(variable);
      return [el('label', { htmlFor: id }, `${label(field.name)}: the environment variable holding it${required}`),
        el('input', { id, value: variable, placeholder: 'e.g. MY_API_TOKEN', autocomplete: 'off', dataset: { field: field.name, part: 'variable' }, ...attributes }),
        el('label', { htmlFor: `${id}-value` }, isSet ? 'Its value: set (type a new one to replace it)' : 'Its value (saved in .env, never in sources.yml; leave blank if already set)'),
        el('input', { id: `${id}-value`, type: 'password', autocomplete: 'new-password', placeholder: isSet ? 'set' : '', dataset: { field: field.name, part: 'secret' } })];
    }
    case 'items': {
      const first = Array.isArray(value) && value[0] !== null && typeof value[0] === 'object' ? value[0] : {};
      return [el('fieldset', {}, el('legend', {}, `${label(field.name)}: the first one${Array.isArray(value) && value.length > 1 ? ` (the other ${String(value.length - 1)} are kept)` : ''}`),
        ...[['path', 'path (relative to the API root)'], ['data_selector', 'where the records sit in the response, e.g. data (blank: found automatically)'],
          ['primary_key', 'primary key column (blank: none; records are replaced each sync)']]
          .flatMap(([part, text]) => [el('label', { htmlFor: `${id}-${part}` }, text),
            el('input', { id: `${id}-${part}`, value: typeof first[part] === 'string' ? first[part] : '', autocomplete: 'off', dataset: { field: field.name, part } })]))];
    }
    case 'mapping':
      return [el('label', { htmlFor: id }, `${label(field.name)} as JSON, e.g. {"key": "value"}${required}`),
        el('textarea', { id, rows: 2, value: Object.hasOwn(current, field.name) ? JSON.stringify(value) : '', dataset: { field: field.name }, ...attributes })];
    default: {
      const shown = value === undefined || value === null || typeof value === 'object' && !Array.isArray(value) ? '' : Array.isArray(value) ? value.join(', ') : String(value);
      return [el('label', { htmlFor: id }, `${label(field.name)}${field.kind === 'list' ? ', comma-separated' : ''}${required}`),
        el('input', { id, type: field.kind === 'number' ? 'number' : 'text', value: shown, autocomplete: 'off', dataset: { field: field.name }, ...attributes })];
    }
  }
}

/** One field, its inputs and help together, so it can be hidden as one while another field's choice excludes it. */
function fieldBlock(field) {
  return el('div', { className: 'field', dataset: { fieldBlock: field.name } }, ...fieldInputs(field), helpOf(field));
}

function currentType() {
  return types.find((type) => type.key === typeSelect.value);
}

/** Whether `field` applies given the other fields' current choices (rest_api's credentials by auth type). */
function applies(field) {
  if (!field.shown_for) return true;
  const chooser = fieldset.querySelector(`[data-field="${field.shown_for.field}"]`);
  return chooser !== null && field.shown_for.values.includes(chooser.value);
}

function showApplicableFields() {
  for (const field of currentType()?.fields ?? []) {
    const block = fieldset.querySelector(`[data-field-block="${field.name}"]`);
    if (block) block.hidden = !applies(field);
  }
}

function showFields() {
  const type = currentType();
  // The server never runs code an admin has not saved, so the form does not offer to test it.
  const runsCode = type?.admin_only === true;
  const untested = runsCode && type.addable ? ' It runs code on the server, so it is not tested before it is saved: save it, then sync it.' : '';
  typeHelp.textContent = type ? `Signs in with: ${type.auth_type ?? 'nothing'}.${untested}` : '';
  testButton.disabled = runsCode;
  fieldset.replaceChildren(el('legend', {}, 'Settings'), ...(type?.fields ?? []).map(fieldBlock));
  showApplicableFields();
}

function showTypes() {
  const addable = types.filter((type) => type.category === categorySelect.value && type.addable);
  typeSelect.replaceChildren(...addable.map((type) => el('option', { value: type.key }, type.key)));
  showFields();
}

/** rest_api's first endpoint as edited, over the saved one so its other keys (a paginator, params) stay. */
function editedItems(field, inputs) {
  const saved = Array.isArray(current[field.name]) ? current[field.name] : [];
  const first = { ...(saved[0] ?? {}) };
  for (const part of inputs) {
    const text = part.value.trim();
    if (text === '') delete first[part.dataset.part];
    else first[part.dataset.part] = text;
  }
  return first.path === undefined ? undefined : [first, ...saved.slice(1)];
}

function sameMembers(chosen, defaults) {
  const expected = Array.isArray(defaults) ? defaults : [];
  return chosen.length === expected.length && chosen.every((value) => expected.includes(value));
}

/** One field's value as the section wants it, or undefined when left blank, at its default, or not applying. */
function valueOf(field, secrets) {
  if (!applies(field)) return undefined;
  const inputs = [...fieldset.querySelectorAll(`[data-field="${field.name}"]`)];
  const [input] = inputs;
  switch (field.kind) {
    case 'boolean': return input.checked === (field.default === true) ? undefined : input.checked;
    case 'choice': return input.value === field.default ? undefined : input.value;
    case 'choices': {
      const chosen = inputs.filter((box) => box.checked).map((box) => box.value);
      return sameMembers(chosen, field.default) ? undefined : chosen;
    }
    case 'env': {
      const variable = inputs.find((part) => part.dataset.part === 'variable').value.trim();
      const secret = inputs.find((part) => part.dataset.part === 'secret').value;
      if (variable !== '' && secret !== '') secrets[variable] = secret;
      return variable === '' || variable === field.default ? undefined : variable;
    }
    case 'items': return editedItems(field, inputs);
    case 'mapping': return input.value.trim() === '' ? undefined : JSON.parse(input.value);
    case 'list': {
      const items = input.value.split(',').map((item) => item.trim()).filter((item) => item !== '');
      return items.length === 0 || sameMembers(items, field.default) ? undefined : items;
    }
    case 'number': return input.value === '' || Number(input.value) === field.default ? undefined : Number(input.value);
    default: return input.value.trim() === '' || input.value.trim() === field.default ? undefined : input.value.trim();
  }
}

/** The section and credentials the form holds; undefined (having said why) when a JSON field cannot be read. */
function entered(type) {
  const secrets = {};
  const config = {};
  try {
    for (const field of type.fields) {
      const value = valueOf(field, secrets);
      if (value !== undefined) config[field.name] = value;
    }
  } catch {
    say(message, 'A JSON field could not be read: check its braces and quotes.');
    return undefined;
  }
  return { config, secrets };
}

function clearSecrets() {
  for (const secret of fieldset.querySelectorAll('[data-part="secret"]')) {
    if (secret.value !== '') secret.placeholder = 'set';
    secret.value = '';
  }
}

async function save(event) {
  event.preventDefault();
  const type = currentType();
  const values = type && entered(type);
  if (!values) return;
  try {
    if (editing) {
      const reply = await api('PUT', `/api/sources/${encodeURIComponent(editing)}`, { ...values, version });
      version = reply.version;
      clearSecrets();
      say(message, reply.message, 'ok');
      return;
    }
    const reply = await api('POST', '/api/sources', { name: nameInput.value.trim(), type: type.key, ...values, version });
    version = reply.version;
    savedName = reply.source_name;
    clearSecrets();
    say(message, reply.message, 'ok');
    document.getElementById('after-save-text').textContent = `${savedName} is in sources.yml. Sync it to load its data.`;
    document.getElementById('source-link').href = `/sources/${encodeURIComponent(savedName)}`;
    afterSave.hidden = false;
    form.querySelector('#save-source').disabled = true;
  } catch (error) {
    say(message, error.message);
  }
}

/** Tests what the form holds, saved or not (the check of `quarry source test`); nothing is written. */
async function testEntered() {
  const type = currentType();
  const values = type && entered(type);
  if (!values) return;
  testButton.disabled = true;
  testResult.hidden = true;
  const name = editing || nameInput.value.trim();
  try {
    const reply = await api('POST', '/api/source-test', { ...(name === '' ? {} : { name }), type: type.key, ...values });
    say(testResult, reply.success ? `Connection test passed: ${reply.message}` : `Connection test failed: ${reply.message}`, reply.success ? 'ok' : 'error');
  } catch (error) {
    say(testResult, error.message);
  } finally {
    testButton.disabled = false;
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

/** Editing: the type and name are fixed, the fields show what sources.yml holds. */
async function startEditing() {
  const saved = await api('GET', `/api/sources/${encodeURIComponent(editing)}/config`);
  version = saved.version;
  current = saved.section;
  credentialsSet = new Set(saved.credentials.filter((credential) => credential.set).map((credential) => credential.variable));
  const type = types.find((candidate) => candidate.key === saved.type);
  categorySelect.replaceChildren(el('option', { value: type.category }, type.category));
  typeSelect.replaceChildren(el('option', { value: type.key }, type.key));
  categorySelect.disabled = true;
  typeSelect.disabled = true;
  nameInput.value = saved.name;
  nameInput.readOnly = true;
  showFields();
  if (!type.addable) {
    say(message, type.admin_only ? `Only an admin edits a ${type.key} source: it runs code on the server` : `${type.key} sources are edited in sources.yml by hand: ${type.reason}`);
    form.querySelector('#save-source').disabled = true;
    testButton.disabled = true;
  }
}

async function start() {
  const [catalog, file] = await Promise.all([api('GET', '/api/source-types'), api('GET', '/api/sources-file')]);
  types = catalog.types;
  version = file.version;
  if (editing) return startEditing();
  const categories = catalog.categories.filter((category) => types.some((type) => type.category === category && type.addable));
  categorySelect.replaceChildren(...categories.map((category) => el('option', { value: category }, category)));
  // A type that runs code is, for a caller who may not configure code, one to ask an admin for, not to add by hand.
  const forAnAdmin = types.filter((type) => !type.addable && type.admin_only);
  document.getElementById('admin-only').replaceChildren(...forAnAdmin.map((type) => el('li', {}, el('code', {}, type.key))));
  document.getElementById('admin-types').hidden = forAnAdmin.length === 0;
  document.getElementById('not-addable').replaceChildren(...types.filter((type) => !type.addable && !type.admin_only)
    .map((type) => el('li', {}, el('code', {}, type.key), ` — ${type.reason}`)));
  showTypes();
  return undefined;
}

categorySelect.addEventListener('change', showTypes);
typeSelect.addEventListener('change', showFields);
fieldset.addEventListener('change', showApplicableFields);
form.addEventListener('submit', (event) => { void save(event); });
testButton.addEventListener('click', () => { void testEntered(); });
syncButton.addEventListener('click', () => { void syncSource(); });
start().catch((error) => { say(message, error.message); });
