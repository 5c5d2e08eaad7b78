import { checkbox, confirm, input, password, select } from '@inquirer/prompts';
import { parse as parseYamlValue } from 'yaml';
import { loadEnvironment, loadProjectConfig, projectPaths, resolveDataRoots, type ProjectPaths } from '../config/index.ts';
import {
  addableType, addSourceToProject, CATEGORIES, isAddable, REST_AUTH_FIELD_NAMES, REST_AUTH_FIELDS, loadSources, newSourceNameProblem, sectionFields,
  SOURCE_TYPE_KEYS, SOURCE_TYPES, type SectionField, type SourceTypeKey,
} from '../sources/config/index.ts';
import { testConnection } from '../jobs/index.ts';
import { assertSourceWithinProject } from '../sources/index.ts';
import { CliError } from './cli-error.ts';
import { isInteractive } from './prompt-or-flag.ts';
import { runSyncHere } from './source-sync.ts';
import { withAlertingProject, withProject } from './with-project.ts';
import { describeError } from '../errors.ts';

export interface SourceAddOptions {
  project: string;
  type?: string;
  name?: string;
  /** `key=value` pairs for the type's section; dotted keys reach into lists and mappings (`endpoints.0.path=/users`). */
  set?: string[];
  /** `NAME=value` pairs written to .env, for the credentials the section's *_env fields name. */
  secret?: string[];
  test?: boolean;
  sync?: boolean;
  nonInteractive?: boolean;
}

/** `quarry source add`: the wizard, or its flag form for scripts. Writes sources.yml and .env, tests, optionally syncs. */
export async function addSource(options: SourceAddOptions, env: NodeJS.ProcessEnv): Promise<string> {
  const paths = projectPaths(options.project);
  const existing = loadSources(paths).map((source) => source.name);
  const interactive = options.type === undefined && isInteractive(options.nonInteractive);
  if (!interactive && options.type === undefined) throw new CliError('--type is required when not running interactively');

  const type = interactive ? await askType() : addableType(options.type ?? '');
  const name = options.name ?? (interactive ? await askName(existing) : undefined);
  if (name === undefined) throw new CliError('--name is required when not running interactively');
  const nameProblem = newSourceNameProblem(name, existing);
  if (nameProblem !== undefined) throw new CliError(nameProblem);

  const projectEnv = loadEnvironment(paths, env);
  const secrets = new Map(parsePairs(options.secret ?? [], '--secret'));
  const section = interactive ? await askSection(type, name, projectEnv, secrets) : sectionFromFlags(options.set ?? []);
  const dataRoots = resolveDataRoots(paths, loadProjectConfig(paths), projectEnv);
  addSourceToProject(paths, { name, type, section, secrets }, (source) => { assertSourceWithinProject(source, dataRoots, paths.root); });

  const lines = [`Added the ${type} source "${name}" to ${paths.sourcesFile}${secrets.size > 0 ? ` (credentials in ${paths.envFile})` : ''}.`];
  if (SOURCE_TYPES[type].authType === 'OAuth') lines.push('It signs in with OAuth: grant access once with `quarry oauth setup google --for sources` (or set its credentials variable).');
  const runTest = options.test ?? (interactive ? await confirm({ message: 'Test the connection now?', default: true }) : false);
  if (runTest) lines.push(await describeConnectionTest(options.project, name, env));
  const runSync = options.sync ?? (interactive ? await confirm({ message: 'Run a first sync now?', default: false }) : false);
  if (runSync) {
    console.log(lines.join('\n'));
    lines.length = 0;
    lines.push(await withAlertingProject(options.project, env, (ctx) => runSyncHere(ctx, name, { fullRefresh: false })));
  }
  lines.push('A running Quarry picks the source up when restarted.');
  return lines.join('\n');
}

async function describeConnectionTest(project: string, name: string, env: NodeJS.ProcessEnv): Promise<string> {
  return withProject(project, env, async (ctx) => {
    const source = ctx.sources.find((candidate) => candidate.name === name);
    if (source === undefined) throw new CliError(`The source ${name} was not found after writing it`);
    try {
      const result = await testConnection({ source, paths: ctx.paths, env: ctx.env, sourceTokens: ctx.sourceTokens, outbound: ctx.outbound, dataRoots: ctx.dataRoots, now: ctx.now, signal: AbortSignal.timeout(120_000),
        spreadsheetSeconds: ctx.config.limits.spreadsheet_seconds });
      return `Connection test passed: ${result}.`;
    } catch (error) {
      const cause = describeError(error);
      throw new CliError(`the connection test failed: ${cause}\nThe source was saved; fix its settings in sources.yml or .env and test again with \`quarry source test ${name}\`.`);
    }
  });
}

/** `quarry source test <name>`: the same check as the wizard's, for a source already configured. */
export async function testSource(project: string, name: string, env: NodeJS.ProcessEnv): Promise<string> {
  const paths: ProjectPaths = projectPaths(project);
  if (!loadSources(paths).some((source) => source.name === name)) throw new CliError(`No source named "${name}"`);
  return describeConnectionTest(project, name, env);
}

async function askType(): Promise<SourceTypeKey> {
  const category = await select({
    message: 'What kind of source?',
    choices: CATEGORIES.map((value) => ({ value, name: value })),
  });
  const types = SOURCE_TYPE_KEYS.map((key) => SOURCE_TYPES[key]).filter((type) => type.category === category);
  return select({
    message: 'Which type?',
    choices: types.map((type) => ({
      value: type.key,
      name: `${type.key} (${type.authType ?? 'no registry entry'})${type.offeredBecause === null ? '' : `: ${type.offeredBecause}`}`,
      disabled: isAddable(type) ? false : type.wizardDisabledReason ?? true,
    })),
  });
}

async function askName(existing: readonly string[]): Promise<string> {
  return input({
    message: 'Name (lowercase letters, digits, underscores; it names the warehouse schema raw_<name>)',
    required: true,
    validate: (value) => {
      return newSourceNameProblem(value, existing) ?? true;
    },
  });
}

/** Prompts for each field of the type's section; returns only what differs from the defaults. */
async function askSection(
  type: SourceTypeKey, name: string, env: Readonly<Record<string, string>>, secrets: Map<string, string>,
): Promise<Record<string, unknown>> {
  const section: Record<string, unknown> = {};
  let fields = sectionFields(type as Exclude<SourceTypeKey, 'sql_database' | 'web_scraper'>);
  for (const field of fields) {
    if (type === 'rest_api' && REST_AUTH_FIELD_NAMES.has(field.name)) continue;
    const value = await askField(field, name, env, secrets);
    if (value !== undefined) section[field.name] = value;
    if (type === 'rest_api' && field.name === 'auth_type') {
      const wanted = REST_AUTH_FIELDS[String(value ?? field.defaultValue)] ?? [];
      fields = sectionFields('rest_api');
      for (const authField of fields.filter((candidate) => wanted.includes(candidate.name))) {
        const authValue = await askField({ ...authField, required: true }, name, env, secrets);
        if (authValue !== undefined) section[authField.name] = authValue;
      }
    }
  }
  return section;
}

async function askField(field: SectionField, sourceName: string, env: Readonly<Record<string, string>>, secrets: Map<string, string>): Promise<unknown> {
  const label = field.name.replaceAll('_', ' ');
  const optional = field.required || field.defaultValue !== undefined ? '' : ' (blank to skip)';
  switch (field.kind) {
    case 'env': {
      const suggested = typeof field.defaultValue === 'string' ? field.defaultValue : `${sourceName.toUpperCase()}_${field.name.replace(/_env$/, '').toUpperCase()}`;
      const variable = await input({ message: `${label}: the environment variable holding it`, default: suggested, required: true });
      if (env[variable] === undefined || env[variable] === '') {
        const value = await password({ message: `Value of ${variable} (saved in .env, never in sources.yml)`, mask: '*' });
        if (value !== '') secrets.set(variable, value);
      }
      return variable === field.defaultValue ? undefined : variable;
    }
    case 'choice': {
      const options = field.options ?? [];
      const choice = await select({ message: label, choices: options.map((value) => ({ value })), default: field.defaultValue as string | undefined });
      return choice === field.defaultValue ? undefined : choice;
    }
    case 'choices': {
      const defaults = Array.isArray(field.defaultValue) ? field.defaultValue as string[] : [];
      const chosen = await checkbox({ message: label, choices: (field.options ?? []).map((value) => ({ value, checked: defaults.includes(value) })), required: true });
      return sameMembers(chosen, defaults) ? undefined : chosen;
    }
    case 'boolean': {
      const answer = await confirm({ message: label, default: field.defaultValue === true });
      return answer === field.defaultValue ? undefined : answer;
    }
    case 'items': return askItems(field);
    default: {
      const shownDefault = typeof field.defaultValue === 'string' || typeof field.defaultValue === 'number' ? String(field.defaultValue) : undefined;
      const hint = field.kind === 'list' ? ', comma-separated' : field.kind === 'mapping' ? ' as YAML, e.g. {key: value}' : '';
      const text = await input({
        message: `${field.name === 'base_url' ? 'API root, to replace the vendor\'s' : label}${hint}${optional}`,
        default: shownDefault,
        required: field.required,
      });
      if (text.trim() === '' || text === shownDefault) return undefined;
      if (field.kind === 'list') return text.split(',').map((item) => item.trim()).filter((item) => item !== '');
      if (field.kind === 'number') return Number(text);
      if (field.kind === 'mapping') return parseYamlValue(text) as unknown;
      return text.trim();
    }
  }
}

/** rest_api's endpoints: a path each, with an optional record location and primary key. */
async function askItems(field: SectionField): Promise<Record<string, string>[]> {
  const items: Record<string, string>[] = [];
  do {
    const item: Record<string, string> = { path: await input({ message: `${field.name}: path (relative to the API root)`, required: true }) };
    const selector = await input({ message: 'Where the records sit in the response, e.g. data (blank: found automatically)' });
    if (selector.trim() !== '') item.data_selector = selector.trim();
    const key = await input({ message: 'Primary key column (blank: none; records are replaced each sync)' });
    if (key.trim() !== '') item.primary_key = key.trim();
    items.push(item);
  } while (await confirm({ message: 'Add another endpoint?', default: false }));
  return items;
}

function sameMembers(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item) => b.includes(item));
}

function parsePairs(pairs: readonly string[], flag: string): [string, string][] {
  return pairs.map((pair) => {
    const equals = pair.indexOf('=');
    if (equals <= 0) throw new CliError(`${flag} expects key=value, got "${pair}"`);
    return [pair.slice(0, equals).trim(), pair.slice(equals + 1)];
  });
}

/** `--set` pairs as a section: values read as YAML (numbers, booleans, [lists]); dotted keys nest. */
export function sectionFromFlags(pairs: readonly string[]): Record<string, unknown> {
  const section: Record<string, unknown> = {};
  for (const [key, text] of parsePairs(pairs, '--set')) {
    let value: unknown;
    try {
      value = parseYamlValue(text);
    } catch {
      value = text;
    }
    const segments = key.split('.');
    let target: Record<string, unknown> | unknown[] = section;
    segments.forEach((segment, index) => {
      if (segment === '' || segment === '__proto__' || segment === 'constructor' || segment === 'prototype') {
        throw new CliError(`--set ${key}: "${segment}" is not a field name`);
      }
      const last = index === segments.length - 1;
      const container = target as Record<string, unknown>;
      if (last) {
        container[segment] = value ?? '';
        return;
      }
      const nextIsIndex = /^\d+$/.test(segments[index + 1] ?? '');
      container[segment] ??= nextIsIndex ? [] : {};
      const next = container[segment];
      if (next === null || typeof next !== 'object') throw new CliError(`--set ${key}: ${segments.slice(0, index + 1).join('.')} is already a value`);
      target = next as Record<string, unknown>;
    });
  }
  return section;
}
