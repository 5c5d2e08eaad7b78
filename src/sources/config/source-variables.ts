import path from 'node:path';
import { formatProblem, loadProjectConfig, type ProjectConfig, type ProjectPaths } from '../../config/index.ts';
import { ConfigError, InvalidRequestError } from '../../errors.ts';
import { sectionFields } from './section-fields.ts';
import { SOURCE_TYPES } from './source-types.ts';
import { loadSources } from './sources-file.ts';
import type { SourceConfig } from './sources-config.ts';

/** What a child process needs to start at all (the pipeline runner's Python): never a credential. */
const PROCESS_BASICS = ['PATH', 'HOME', 'USER', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TMPDIR', 'SSL_CERT_FILE', 'SSL_CERT_DIR', 'REQUESTS_CA_BUNDLE'];

/** dlt's configuration by environment, which only a source that runs code (an admin's) reads. */
const DLT_PREFIXES = ['SOURCES__', 'DESTINATION__', 'RUNTIME__', 'NORMALIZE__', 'EXTRACT__', 'LOAD__', 'DLT_'];

/**
 * Names that Quarry, or a runtime it runs (Node, Python, the dynamic linker, libpq, dbt, Superset, DuckDB, dlt,
 * git, TLS), reads by itself: writing one from a source's form would silence the log, move the Python
 * environments or preload a library; reading one would hand a source what is not its own.
 */
const PLATFORM_NAMES = new Set([...PROCESS_BASICS, 'SHELL', 'PWD', 'TMP', 'TEMP', 'NO_COLOR', 'HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'ALL_PROXY', 'VIRTUAL_ENV']);
const PLATFORM_PREFIXES = [
  'QUARRY_', 'LD_', 'DYLD_', 'NODE_', 'NPM_', 'UV_', 'PYTHON', 'PIP_', 'DBT_', 'SUPERSET_', 'FLASK_', 'DUCKDB_', 'GIT_', 'SSL_', 'LC_', ...DLT_PREFIXES,
];
/** libpq's own settings (PGPASSWORD, PGHOST...), which the lake's PostgreSQL catalog connection reads. */
const LIBPQ_NAME = /^PG[A-Z]/;

const ENV_REFERENCE = /^env:([A-Z_][A-Z0-9_]*)$/;

/** A variable a source's section names, and where: `['rest_api', 'auth_token_env']`. */
interface DeclaredVariable {
  readonly name: string;
  readonly at: readonly PropertyKey[];
}

/**
 * The environment variables a source reads its credentials from: the values of its section's `*_env` fields and
 * its `env:NAME` references, nested ones included. Nothing else of the environment is the source's.
 */
export function credentialVariables(source: SourceConfig): string[] {
  return [...new Set(declaredVariables(source).map((variable) => variable.name))];
}

function declaredVariables(source: SourceConfig): DeclaredVariable[] {
  const sectionName = SOURCE_TYPES[source.type].section;
  const found: DeclaredVariable[] = [];
  collectVariables((source as unknown as Record<string, unknown>)[sectionName], [sectionName], found);
  return found;
}

function collectVariables(value: unknown, at: readonly PropertyKey[], found: DeclaredVariable[]): void {
  if (typeof value === 'string') {
    const name = ENV_REFERENCE.exec(value)?.[1];
    if (name !== undefined) found.push({ name, at });
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, index) => { collectVariables(item, [...at, index], found); });
    return;
  }
  if (value === null || typeof value !== 'object') return;
  for (const [field, item] of Object.entries(value)) {
    if (field.endsWith('_env') && typeof item === 'string' && item !== '') found.push({ name: item, at: [...at, field] });
    else collectVariables(item, [...at, field], found);
  }
}

/** The variables project.yml names for Quarry's own secrets: the alerts', the logins' and the warehouse's `*_env`. */
export function projectVariables(config: ProjectConfig): Set<string> {
  const found: DeclaredVariable[] = [];
  collectVariables(config, [], found);
  return new Set(found.map((variable) => variable.name));
}

/**
 * What reading `source` may see of `env`: only its declared variables, so a source test or sync never holds
 * another's credential. A source that runs an admin's code also gets what its Python process needs to start and
 * dlt's own settings.
 */
export function sourceEnvironment(source: SourceConfig, env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const runsCode = SOURCE_TYPES[source.type].runsCode;
  const visible = new Set([...credentialVariables(source), ...(runsCode ? PROCESS_BASICS : [])]);
  const environment: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (visible.has(name) || (runsCode && DLT_PREFIXES.some((prefix) => name.startsWith(prefix)))) environment[name] = value;
  }
  return environment;
}

/** The credential values `source` holds in `env`, to redact from anything it says (four characters or more). */
export function sourceSecretValues(source: SourceConfig, env: Readonly<Record<string, string | undefined>>): string[] {
  return credentialVariables(source).map((name) => env[name] ?? '').filter((value) => value.length >= 4);
}

/** A variable a source may not declare or be given, and why. */
export class VariableNotOwnedError extends InvalidRequestError {
  override readonly code = 'variable_not_allowed';
}

/**
 * Why `source` may not declare `name`, or undefined when it may. A variable belongs to Quarry when Quarry or a
 * runtime it runs reads it by itself, to project.yml when a setting names it, and otherwise to the first source
 * declaring it. Sources of one type may share it (two accounts of one vendor, several schemas of one database), as
 * may sources whose types both name it by default (search_ads reads web_analytics' Google key): what one of them
 * may read, the same editor may already point elsewhere by editing the other.
 */
function ownershipProblem(name: string, source: SourceConfig, others: readonly SourceConfig[], project: ReadonlySet<string>): string | undefined {
  if (PLATFORM_NAMES.has(name) || LIBPQ_NAME.test(name) || PLATFORM_PREFIXES.some((prefix) => name.startsWith(prefix))) {
    return `${name} belongs to Quarry or its runtime, not to a source: name another variable for the credential`;
  }
  if (project.has(name)) return `${name} belongs to the project's settings (project.yml), not to a source: name another variable`;
  const owner = others.find((other) => credentialVariables(other).includes(name) && !mayShare(name, source, other));
  if (owner === undefined) return undefined;
  return `${name} belongs to the source ${owner.name}: set a distinct *_env (or env: reference) for this source's credential`;
}

function mayShare(name: string, source: SourceConfig, other: SourceConfig): boolean {
  return source.type === other.type || (typeDefaults(source).has(name) && typeDefaults(other).has(name));
}

/** The variables a source's type names by default, as its section's schema says. */
function typeDefaults(source: SourceConfig): Set<string> {
  return new Set(sectionFields(source.type).filter((field) => field.kind === 'env' && typeof field.defaultValue === 'string').map((field) => String(field.defaultValue)));
}

/**
 * Throws ConfigError, located in sources.yml, for each variable a source declares that belongs to Quarry, to
 * project.yml or to an earlier source: a hand-edited file is held to what the form is.
 */
export function assertSourceVariablesOwned(paths: ProjectPaths, config: ProjectConfig, sources: readonly SourceConfig[]): void {
  const label = path.relative(paths.root, paths.sourcesFile);
  const project = projectVariables(config);
  const problems = sources.flatMap((source, index) => declaredVariables(source).flatMap((variable) => {
    const problem = ownershipProblem(variable.name, source, sources.slice(0, index), project);
    return problem === undefined ? [] : [formatProblem(label, ['sources', index, ...variable.at], problem)];
  }));
  if (problems.length > 0) throw new ConfigError(problems);
}

/**
 * Refuses, before anything is written or run, a source that declares a variable belonging to Quarry, the project's
 * settings or another source, and credentials given for a variable the source does not declare: a form configures
 * its own source's credentials, nothing else.
 */
export function assertOwnVariables(paths: ProjectPaths, source: SourceConfig, secretNames: Iterable<string>): void {
  const declared = credentialVariables(source);
  for (const name of secretNames) {
    if (!declared.includes(name)) {
      const its = declared.length === 0 ? 'declares no variable' : `declares ${declared.join(', ')}`;
      throw new VariableNotOwnedError(`A credential was given for ${name}, which the source does not read: its section ${its}`);
    }
  }
  const project = projectVariables(loadProjectConfig(paths));
  const others = loadSources(paths).filter((other) => other.name !== source.name);
  for (const name of declared) {
    const problem = ownershipProblem(name, source, others, project);
    if (problem !== undefined) throw new VariableNotOwnedError(problem);
  }
}

/**
 * Refuses a source from a form (the browser or the API) that declares a variable holding a value (in .env or the
 * service's environment) it was not given, when no saved source reads that value: what the service was started
 * with (a cloud key, another tool's token) is nobody's to point at a server of their choosing. A value a saved
 * source reads is that source's; a value typed into the form is the sender's own, unless the service's environment
 * sets the variable (`fixed`): that value wins over .env, so the one typed would be written and never read.
 * Whether another source's variable may be shared is assertOwnVariables' to say.
 */
export function assertValuesGivenOrRead(
  paths: ProjectPaths, source: SourceConfig, givenNames: Iterable<string>, env: Readonly<Record<string, string | undefined>>, fixed: ReadonlySet<string>,
): void {
  const given = new Set(givenNames);
  const saved = loadSources(paths);
  for (const name of credentialVariables(source)) {
    if (given.has(name) && fixed.has(name)) {
      throw new VariableNotOwnedError(`${name} is set in the service's environment, which a form cannot replace: name another variable for this source's credential`);
    }
    if (given.has(name) || (env[name] ?? '') === '') continue;
    if (!saved.some((other) => credentialVariables(other).includes(name))) {
      throw new VariableNotOwnedError(
        `${name} already holds a value that no source reads: type the credential into the form for this source, or name another variable`,
      );
    }
  }
}
