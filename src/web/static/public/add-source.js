// Adding or editing a source: category → type (its key beside the product it stands for) → fields built from the
// type's schema (GET /api/source-types, see source-fields.js), rest_api's credential fields only for the chosen auth
// type; credentials in password fields, sent once and written to .env only (an existing one shows as set). A file
// source leads with its folder, proposed inside the data root and created on saving, and takes CSV uploads once
// saved. The entered configuration can be tested before it is saved; a test goes stale when a field changes, and a
// failed one makes Save ask first. It is saved with the sources.yml version read; a new source is then synced at
// once, its progress live.
import { api, el, formatNumber, say } from './api.js';
import { setUpUploads } from './csv-upload.js';
import { onEvent, onProgress } from './live.js';
import { fieldBlock, readField } from './source-fields.js';

const form = document.getElementById('add-source-form');
const editing = form.dataset.editing;
const message = document.getElementById('add-source-message');
const categorySelect = document.getElementById('source-category');
const typeSelect = document.getElementById('source-type');
const typeHelp = document.getElementById('type-help');
const nameInput = document.getElementById('source-name');
const fieldset = document.getElementById('source-fields');
const afterSave = document.getElementById('after-save');
const saveButton = document.getElementById('save-source');
const testButton = document.getElementById('test-source');
const testResult = document.getElementById('test-result');
const syncProgress = document.getElementById('sync-progress');
const syncResult = document.getElementById('sync-result');
const syncButton = document.getElementById('sync-source');
const saveLabel = saveButton.textContent;
const SYNC_STARTED = 'Sync started…';
const SAVE_ANYWAY = 'The connection test of these settings failed (see below). Fix them and test again, or press “Save anyway” to save them as they are.';

let types = [];
let dataRoots = ['data'];
let version = '';
let savedName = '';
/** The edited source's section as sources.yml holds it. */
let current = {};
let credentialsSet = new Set();
/** The last connection test: the form it tested, and whether it passed. */
let tested;
/** The form Save was pressed for beside a failed test of it: pressed again on the same form, it saves anyway. */
let confirmedState;
let syncing = false;
/** Files were uploaded while a sync ran: sync once more when it ends, so they are loaded. */
let syncAgain = false;

const typeOption = (type) => el('option', { value: type.key }, `${type.key} — ${type.product}`);

function currentType() {
  return types.find((type) => type.key === typeSelect.value);
}

function blockOf(field) {
  return fieldset.querySelector(`:scope [data-field-block="${field.name}"]:not([data-field-block] [data-field-block])`);
}

/** Whether `field` applies given the other fields' current choices (rest_api's credentials by auth type). */
function applies(field) {
  if (!field.shown_for) return true;
  const chooser = blockOf({ name: field.shown_for.field })?.querySelector('select');
  return chooser !== null && chooser !== undefined && field.shown_for.values.includes(chooser.value);
}

/** "Signs in with", from the chosen authentication where the type has a choice of it, else from the type. */
function signsInWith(type) {
  const authField = type.fields.find((field) => field.name === 'auth_type' && field.kind === 'choice');
  const chosen = authField && blockOf(authField)?.querySelector('select');
  if (!chosen) return type.signs_in_with;
  const index = authField.options.indexOf(chosen.value);
  return authField.option_labels?.[index] ?? chosen.value;
}

function showTypeHelp() {
  const type = currentType();
  // The server never runs code an admin has not saved, so the form does not offer to test it.
  const untested = type?.admin_only && type.addable ? ' It runs code on the server, so it is not tested before it is saved: save it, then sync it.' : '';
  // A type the spec's wizard hides says why the form offers it all the same.
  const offered = type?.offered_because ? `${type.offered_because[0].toUpperCase()}${type.offered_because.slice(1)}. ` : '';
  typeHelp.textContent = type ? `${offered}Signs in with: ${signsInWith(type)}.${untested}` : '';
}

function showApplicableFields() {
  for (const field of currentType()?.fields ?? []) {
    const block = blockOf(field);
    if (block) block.hidden = !applies(field);
  }
  showTypeHelp();
}

/** The folder proposed for a new file source: one named after it in the first data root. */
function proposedFolder() {
  const name = nameInput.value.trim();
  return name === '' ? '' : `${dataRoots[0].replace(/\/+$/, '')}/${name}`;
}

/** A file source starts from its files: where they live comes first, with what saving does about it. */
function filesLead(folderBlock) {
  const input = folderBlock.querySelector('input');
  if (!editing && input.value === '') {
    input.value = proposedFolder();
    input.dataset.proposed = 'yes';
  }
  input.placeholder = `${dataRoots[0]}/<source name>`;
  input.addEventListener('input', () => { delete input.dataset.proposed; });
  return el('div', { className: 'files-lead' },
    el('p', {}, el('strong', {}, 'Upload files, or point at a folder inside the data root'),
      ` (${dataRoots.map((root) => `${root.replace(/\/+$/, '')}/`).join(', ')}). Saving creates the folder if it does not exist; right after saving you can upload CSV files into it. Files you put there yourself are loaded too.`),
    folderBlock);
}

function showFields() {
  const type = currentType();
  testButton.disabled = type?.admin_only === true;
  const fields = type?.fields ?? [];
  const blocks = new Map(fields.map((field) => [field.name, fieldBlock(field, Object.hasOwn(current, field.name) ? current[field.name] : undefined, { credentialsSet })]));
  const lead = type?.folder_field ? filesLead(blocks.get(type.folder_field)) : undefined;
  const rest = fields.filter((field) => field.name !== type?.folder_field);
  const common = rest.filter((field) => !field.advanced).map((field) => blocks.get(field.name));
  const advanced = rest.filter((field) => field.advanced);
  const more = advanced.length === 0 ? undefined : el('details', { id: 'more-settings', open: advanced.some((field) => Object.hasOwn(current, field.name)) },
    el('summary', {}, 'More settings'), ...advanced.map((field) => blocks.get(field.name)));
  fieldset.replaceChildren(el('legend', {}, 'Settings'), ...[lead, ...common, more].filter(Boolean));
  showApplicableFields();
  showTestState();
}

function showTypes() {
  const addable = types.filter((type) => type.category === categorySelect.value && type.addable);
  typeSelect.replaceChildren(...addable.map(typeOption));
  showFields();
}

/** The section and credentials the form holds. */
function entered(type) {
  const secrets = {};
  const config = {};
  for (const field of type.fields) {
    const value = applies(field) ? readField(blockOf(field), field, secrets) : undefined;
    if (value !== undefined) config[field.name] = value;
  }
  return { config, secrets };
}

/** What a connection test depends on, to tell whether its result still describes the form. */
function formState() {
  const type = currentType();
  return type ? JSON.stringify([type.key, editing || nameInput.value.trim(), entered(type)]) : '';
}

/** A test result shows only while the form holds what was tested; a change also takes back a Save anyway. */
function showTestState() {
  const state = formState();
  if (confirmedState !== undefined && state !== confirmedState) {
    confirmedState = undefined;
    saveButton.textContent = saveLabel;
    if (message.textContent === SAVE_ANYWAY) message.hidden = true;
  }
  if (tested) testResult.hidden = state !== tested.state;
}

function clearSecrets() {
  for (const secret of fieldset.querySelectorAll('[data-part="secret"]')) {
    if (secret.value !== '') secret.placeholder = 'set';
    secret.value = '';
  }
}

/** Save beside a failed test of these very settings: say so once, and save when pressed again. */
function failedTestStandsInTheWay() {
  const state = formState();
  if (!tested || tested.passed || state !== tested.state || state === confirmedState) return false;
  confirmedState = state;
  saveButton.textContent = 'Save anyway';
  say(message, SAVE_ANYWAY);
  return true;
}

async function save(event) {
  event.preventDefault();
  const type = currentType();
  if (!type || failedTestStandsInTheWay()) return;
  const values = entered(type);
  try {
    saveButton.textContent = saveLabel;
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
    // The test was of a source not saved yet; what is saved now is told below.
    testResult.hidden = true;
    tested = undefined;
    showAfterSave(type, values.config);
    saveButton.disabled = true;
    await syncSource();
  } catch (error) {
    say(message, error.message);
  }
}

function showAfterSave(type, config) {
  const folder = type.folder_field ? config[type.folder_field] : undefined;
  document.getElementById('after-save-text').textContent = folder
    ? `${savedName} is in sources.yml, and its first sync has started. Upload CSV files into ${folder} here; each batch is loaded as soon as it arrives.`
    : `${savedName} is in sources.yml, and its first sync has started.`;
  document.getElementById('upload-where').textContent = folder ? `They go to ${folder}.` : '';
  document.getElementById('after-save-upload').hidden = !folder;
  document.getElementById('source-link').href = `/sources/${encodeURIComponent(savedName)}`;
  afterSave.hidden = false;
}

/** Tests what the form holds, saved or not (the check of `quarry source test`); nothing is written. */
async function testEntered() {
  const type = currentType();
  if (!type) return;
  const values = entered(type);
  const state = formState();
  testButton.disabled = true;
  testResult.hidden = true;
  const name = editing || nameInput.value.trim();
  try {
    const reply = await api('POST', '/api/source-test', { ...(name === '' ? {} : { name }), type: type.key, ...values });
    tested = { state, passed: reply.success };
    say(testResult, reply.success ? `Connection test passed: ${reply.message}` : `Connection test failed: ${reply.message}`, reply.success ? 'ok' : 'error');
  } catch (error) {
    tested = { state, passed: false };
    say(testResult, error.message);
  } finally {
    testButton.disabled = false;
    showTestState();
  }
}

async function syncSource() {
  syncButton.disabled = true;
  syncing = true;
  syncResult.hidden = true;
  syncProgress.hidden = false;
  syncProgress.textContent = SYNC_STARTED;
  try {
    await api('POST', `/api/sources/${encodeURIComponent(savedName)}/sync`, { full_refresh: false });
  } catch (error) {
    say(syncResult, error.message);
    syncButton.disabled = false;
    syncing = false;
  }
}

setUpUploads(document.getElementById('upload-zone'), {
  url: () => `/api/sources/${encodeURIComponent(savedName)}/upload-csv`,
  onUploaded: (reply) => { say(document.getElementById('upload-result'), reply.message, 'ok'); },
  onRefused: (text) => { say(document.getElementById('upload-result'), text); },
  afterBatch: (uploaded) => {
    if (uploaded === 0) return;
    if (syncing) syncAgain = true;
    else void syncSource();
  },
});

onProgress((event) => {
  if (event.source !== savedName) return;
  syncProgress.textContent = `Reading: ${formatNumber(event.rows)} rows in ${formatNumber(event.pages)} page(s)`;
});
onEvent((event) => {
  if (event.source !== savedName || (event.type !== 'sync_completed' && event.type !== 'sync_failed')) return;
  if (event.type === 'sync_completed') say(syncResult, `Synced: ${formatNumber(event.rows)} rows loaded`, 'ok');
  else say(syncResult, `The sync failed: ${event.error}`);
  // A sync that reported no progress leaves no "started" beside its outcome.
  if (syncProgress.textContent === SYNC_STARTED) syncProgress.hidden = true;
  syncing = false;
  syncButton.disabled = false;
  if (syncAgain) {
    syncAgain = false;
    void syncSource();
  }
});

/** Editing: the type and name are fixed, the fields show what sources.yml holds. */
async function startEditing() {
  const saved = await api('GET', `/api/sources/${encodeURIComponent(editing)}/config`);
  version = saved.version;
  current = saved.section;
  credentialsSet = new Set(saved.credentials.filter((credential) => credential.set).map((credential) => credential.variable));
  const type = types.find((candidate) => candidate.key === saved.type);
  categorySelect.replaceChildren(el('option', { value: type.category }, type.category));
  typeSelect.replaceChildren(typeOption(type));
  categorySelect.disabled = true;
  typeSelect.disabled = true;
  nameInput.value = saved.name;
  nameInput.readOnly = true;
  showFields();
  if (!type.addable) {
    say(message, type.admin_only ? `Only an admin edits a ${type.key} source: it runs code on the server` : `${type.key} sources are edited in .quarry/sources.yml by hand. ${type.how_to_add ?? ''}`.trim());
    saveButton.disabled = true;
    testButton.disabled = true;
  }
}

async function start() {
  const [catalog, file] = await Promise.all([api('GET', '/api/source-types'), api('GET', '/api/sources-file')]);
  types = catalog.types;
  dataRoots = catalog.data_roots.length > 0 ? catalog.data_roots : dataRoots;
  version = file.version;
  if (editing) return startEditing();
  const categories = catalog.categories.filter((category) => types.some((type) => type.category === category && type.addable));
  categorySelect.replaceChildren(...categories.map((category) => el('option', { value: category }, category)));
  // A type that runs code is, for a caller who may not configure code, one to ask an admin for, not to add by hand.
  const forAnAdmin = types.filter((type) => !type.addable && type.admin_only);
  document.getElementById('admin-only').replaceChildren(...forAnAdmin.map((type) => el('li', {}, el('code', {}, type.key), ` — ${type.product}`)));
  document.getElementById('admin-types').hidden = forAnAdmin.length === 0;
  document.getElementById('not-addable').replaceChildren(...types.filter((type) => !type.addable && !type.admin_only)
    .map((type) => el('li', {}, el('code', {}, type.key), ` — ${type.product}. ${type.how_to_add ?? type.reason}`)));
  showTypes();
  return undefined;
}

/** A new file source's proposed folder follows its name until the folder is edited. */
function followName() {
  const folder = fieldset.querySelector('.files-lead input[data-proposed="yes"]');
  if (folder) folder.value = proposedFolder();
}

categorySelect.addEventListener('change', showTypes);
typeSelect.addEventListener('change', showFields);
nameInput.addEventListener('input', followName);
fieldset.addEventListener('change', showApplicableFields);
// Clicks too: adding or removing a row changes the form without an input event.
for (const kind of ['input', 'change', 'click']) form.addEventListener(kind, () => { queueMicrotask(showTestState); });
form.addEventListener('submit', (event) => { void save(event); });
testButton.addEventListener('click', () => { void testEntered(); });
syncButton.addEventListener('click', () => { void syncSource(); });
start().catch((error) => { say(message, error.message); });
