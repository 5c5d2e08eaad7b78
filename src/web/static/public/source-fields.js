// The fields of a source type's section as form inputs, built from their schema (GET /api/source-types) with their
// labels and help, and read back as the section: key/value rows for a mapping, one row per item for a list of
// objects (rest_api's endpoints). Credentials go in password inputs and come back apart, for .env only.
import { el } from './api.js';

/** A saved value the inputs cannot show (a paginator written as a mapping), kept as sources.yml holds it. */
const keptValue = new WeakMap();
/** Each item row's saved item, whose keys the form does not show are kept as they were. */
const savedItem = new WeakMap();

const requiredMark = (field) => (field.required ? ' (required)' : '');
const helpId = (id) => `${id}-help`;
const helpOf = (field, id) => (field.help ? el('p', { id: helpId(id), className: 'muted' }, field.help) : undefined);
const describedBy = (field, id) => (field.help ? { 'aria-describedby': helpId(id) } : {});
const isPlainObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

function sameMembers(chosen, defaults) {
  const expected = Array.isArray(defaults) ? defaults : [];
  return chosen.length === expected.length && chosen.every((value) => expected.includes(value));
}

/** A mapping's value as typed: text stays text where the schema wants text, else numbers, booleans and [lists] read as such. */
function typedValue(text, values) {
  if (values === 'text') return text;
  if (/^(true|false)$/.test(text)) return text === 'true';
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  if (/^\[.*\]$/.test(text)) return text.slice(1, -1).split(',').map((part) => part.trim()).filter((part) => part !== '');
  return text;
}

const shownText = (value) => (Array.isArray(value) ? `[${value.join(', ')}]` : String(value));

/** Numbers a list's rows as they are made, so each row's ids stay its own when rows are removed. */
function counter() {
  let next = 0;
  return () => next++;
}

function keyValueRow(field, id, number, key, value) {
  const row = el('div', { className: 'key-value', dataset: { row: '' } });
  const keyInput = el('input', { id: `${id}-key-${number}`, value: key, autocomplete: 'off', dataset: { part: 'key' }, ariaLabel: `${field.label}: name` });
  const valueInput = el('input', { id: `${id}-value-${number}`, value: value === undefined ? '' : shownText(value), autocomplete: 'off', dataset: { part: 'value' }, ariaLabel: `${field.label}: value` });
  if (value !== undefined) keptValue.set(valueInput, value);
  row.append(keyInput, valueInput, el('button', {
    type: 'button', className: 'secondary', textContent: 'Remove', ariaLabel: `Remove this row of ${field.label}`,
    onclick: () => { row.remove(); },
  }));
  return row;
}

/** Key/value rows for a small mapping (headers, query parameters, a cursor per table), one more row on demand. */
function mappingInputs(field, id, value) {
  const number = counter();
  const rows = el('div', { className: 'key-values', dataset: { rows: '' } },
    ...Object.entries(isPlainObject(value) ? value : {}).map(([key, inner]) => keyValueRow(field, id, number(), key, inner)));
  if (rows.childElementCount === 0) rows.append(keyValueRow(field, id, number(), '', undefined));
  return [el('fieldset', { id, ...describedBy(field, id) }, el('legend', {}, `${field.label}${requiredMark(field)}`), rows,
    el('button', { type: 'button', className: 'secondary', textContent: 'Add a row', ariaLabel: `Add a row to ${field.label}`, onclick: () => { rows.append(keyValueRow(field, id, number(), '', undefined)); } }))];
}

function readMapping(block, field) {
  const entries = [];
  for (const row of block.querySelectorAll(':scope > fieldset > [data-rows] > [data-row]')) {
    const key = row.querySelector('[data-part="key"]').value.trim();
    const input = row.querySelector('[data-part="value"]');
    if (key === '') continue;
    // An unchanged value keeps its saved form (a number stays a number, a masked header stays masked).
    const kept = keptValue.get(input);
    entries.push([key, kept !== undefined && input.value === shownText(kept) ? kept : typedValue(input.value.trim(), field.values)]);
  }
  return entries.length === 0 ? undefined : Object.fromEntries(entries);
}

const singular = (label) => label.replace(/ies$/, 'y').replace(/s$/, '');

/** Names the items by their place, and keeps the last one of a required list from being removed. */
function renumber(rows, field) {
  [...rows.children].forEach((row, index) => {
    row.querySelector(':scope > legend').textContent = `${singular(field.label)} ${index + 1}`;
    row.querySelector(':scope > button').disabled = field.required && rows.childElementCount === 1;
  });
}

/** One item of a list of objects: its fields (the rarer ones folded away), a Remove button. */
function itemRow(field, id, rows, number, item) {
  const fields = field.item_fields.map((sub) => fieldBlock(sub, item[sub.name], { idPrefix: `${id}-${number}-`, credentialsSet: new Set() }));
  const common = fields.filter((_, index) => !field.item_fields[index].advanced);
  const rare = fields.filter((_, index) => field.item_fields[index].advanced);
  const opened = field.item_fields.some((sub) => sub.advanced && item[sub.name] !== undefined);
  const row = el('fieldset', { className: 'item', dataset: { item: '' } }, el('legend', {}),
    ...common,
    rare.length === 0 ? undefined : el('details', { open: opened }, el('summary', {}, `More options for this ${singular(field.label).toLowerCase()}`), ...rare),
    el('button', {
      type: 'button', className: 'secondary', textContent: `Remove this ${singular(field.label).toLowerCase()}`,
      onclick: () => {
        row.remove();
        renumber(rows, field);
      },
    }));
  savedItem.set(row, item);
  return row;
}

function itemsInputs(field, id, value) {
  const items = Array.isArray(value) ? value.filter(isPlainObject) : [];
  const number = counter();
  const rows = el('div', { className: 'items', dataset: { rows: '' } });
  rows.append(...(items.length === 0 ? [{}] : items).map((item) => itemRow(field, id, rows, number(), item)));
  renumber(rows, field);
  const add = el('button', {
    type: 'button', className: 'secondary', textContent: `Add ${/^[aeiou]/i.test(field.label) ? 'an' : 'a'} ${singular(field.label).toLowerCase()}`,
    onclick: () => {
      const row = itemRow(field, id, rows, number(), {});
      rows.append(row);
      renumber(rows, field);
      row.querySelector('input')?.focus();
    },
  });
  return [el('fieldset', { id, ...describedBy(field, id) }, el('legend', {}, `${field.label}${requiredMark(field)}`), rows, add)];
}

function readItems(block, field) {
  const items = [];
  for (const row of block.querySelectorAll(':scope > fieldset > [data-rows] > [data-item]')) {
    const item = { ...savedItem.get(row) };
    for (const sub of field.item_fields) {
      const subBlock = row.querySelector(`[data-field-block="${sub.name}"]`);
      const value = readField(subBlock, sub, {});
      if (value === undefined) delete item[sub.name];
      else item[sub.name] = value;
    }
    if (Object.keys(item).length > 0) items.push(item);
  }
  return items.length === 0 ? undefined : items;
}

/** The inputs of one field, by its kind; `value` is the saved value when editing, else the default. */
function fieldInputs(field, value, id, credentialsSet) {
  const attributes = describedBy(field, id);
  switch (field.kind) {
    case 'boolean':
      return [el('div', { className: 'check' },
        el('input', { type: 'checkbox', id, checked: value === true, dataset: { input: '' }, ...attributes }),
        el('label', { htmlFor: id }, field.label))];
    case 'choice':
      return [el('label', { htmlFor: id }, field.label),
        el('select', { id, dataset: { input: '' }, ...attributes },
          ...field.options.map((option, index) => el('option', { value: option, selected: option === value }, field.option_labels?.[index] ?? option)))];
    case 'choices':
      return [el('fieldset', attributes, el('legend', {}, `${field.label}${requiredMark(field)}`), ...field.options.map((option) => el('div', { className: 'check' },
        el('input', { type: 'checkbox', id: `${id}-${option}`, value: option, checked: Array.isArray(value) && value.includes(option), dataset: { input: '' } }),
        el('label', { htmlFor: `${id}-${option}` }, option))))];
    case 'env': {
      const variable = typeof value === 'string' ? value : '';
      const isSet = credentialsSet.has(variable);
      return [el('label', { htmlFor: id }, `${field.label}: the environment variable holding it${requiredMark(field)}`),
        el('input', { id, value: variable, placeholder: 'e.g. MY_API_TOKEN', autocomplete: 'off', dataset: { input: '', part: 'variable' }, ...attributes }),
        el('label', { htmlFor: `${id}-value` }, isSet ? `${field.label}: set (type a new value to replace it)` : `${field.label}: its value (saved in .env, never in sources.yml; leave blank if already set)`),
        el('input', { id: `${id}-value`, type: 'password', autocomplete: 'new-password', placeholder: isSet ? 'set' : '', dataset: { part: 'secret' } })];
    }
    case 'items': return itemsInputs(field, id, value);
    case 'mapping': return mappingInputs(field, id, value);
    default: {
      if (isPlainObject(value)) {
        // Written as a mapping in sources.yml (a paginator with options): shown, and kept as it is.
        const kept = el('code', { id, dataset: { input: '' } }, JSON.stringify(value));
        keptValue.set(kept, value);
        return [el('p', {}, `${field.label}: `, kept, ' (kept as sources.yml has it; edit it there)')];
      }
      const shown = value === undefined || value === null ? '' : Array.isArray(value) ? value.join(', ') : String(value);
      const input = el('input', { id, type: field.kind === 'number' ? 'number' : 'text', value: shown, autocomplete: 'off', dataset: { input: '' }, ...attributes });
      if (Array.isArray(value)) keptValue.set(input, value);
      return [el('label', { htmlFor: id }, `${field.label}${field.kind === 'list' ? ', comma-separated' : ''}${requiredMark(field)}`), input];
    }
  }
}

/**
 * One field, its inputs and help together (hidden as one while another field's choice excludes it). `value` is
 * what sources.yml holds when editing, else undefined for the default; `idPrefix` keeps an item's ids apart.
 */
export function fieldBlock(field, value, { idPrefix = 'field-', credentialsSet = new Set() } = {}) {
  const id = `${idPrefix}${field.name}`;
  const shown = value === undefined ? field.default : value;
  const inputs = fieldInputs(field, shown, id, credentialsSet);
  const help = helpOf(field, id);
  // A group's help belongs under its title, before its rows, not after its last button.
  const [group] = inputs;
  if (help && inputs.length === 1 && group.tagName === 'FIELDSET') {
    group.querySelector(':scope > legend').after(help);
    return el('div', { className: 'field', dataset: { fieldBlock: field.name } }, group);
  }
  return el('div', { className: 'field', dataset: { fieldBlock: field.name } }, ...inputs, help);
}

/**
 * One field's value as the section wants it, or undefined when left blank or at its default. A credential's value
 * goes into `secrets` under its variable's name.
 */
export function readField(block, field, secrets) {
  const inputs = [...block.querySelectorAll('[data-input]')];
  const [input] = inputs;
  switch (field.kind) {
    case 'boolean': return input.checked === (field.default === true) ? undefined : input.checked;
    case 'choice': return input.value === field.default ? undefined : input.value;
    case 'choices': {
      const chosen = inputs.filter((box) => box.checked).map((box) => box.value);
      return sameMembers(chosen, field.default) ? undefined : chosen;
    }
    case 'env': {
      const variable = input.value.trim();
      const secret = block.querySelector('[data-part="secret"]').value;
      if (variable !== '' && secret !== '') secrets[variable] = secret;
      return variable === '' || variable === field.default ? undefined : variable;
    }
    case 'items': return readItems(block, field);
    case 'mapping': return readMapping(block, field);
    case 'list': {
      const items = input.value.split(',').map((item) => item.trim()).filter((item) => item !== '');
      return items.length === 0 || sameMembers(items, field.default) ? undefined : items;
    }
    case 'number': return input.value === '' || Number(input.value) === field.default ? undefined : Number(input.value);
    default: {
      if (keptValue.has(input) && input.tagName === 'CODE') return keptValue.get(input);
      const text = input.value.trim();
      if (text === '' || text === field.default) return undefined;
      // A list written for a text field (a primary key of several columns) goes back as a list.
      return keptValue.has(input) || text.includes(',') && field.name === 'primary_key'
        ? text.split(',').map((part) => part.trim()).filter((part) => part !== '') : text;
    }
  }
}
