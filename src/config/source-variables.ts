import { InvalidRequestError } from '../errors.ts';
import type { ProjectPaths } from './project-paths.ts';
import { loadProjectConfig } from './project-files.ts';
import { SOURCE_TYPES } from './source-types.ts';
import { loadSources } from './sources-file.ts';
import type { SourceConfig } from './sources-config.ts';

/**
 * Variables a reader of any source may see although no section declares them: how to run a process, never a
 * credential. A child such as the Python pipeline runner cannot start without PATH and HOME.
 */
const PROCESS_BASICS = ['PATH', 'HOME', 'USER', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TMPDIR', 'SSL_CERT_FILE', 'SSL_CERT_DIR', 'REQUESTS_CA_BUNDLE'];

/** dlt's configuration by environment, which only a source that runs code (an admin's) reads. */
const DLT_PREFIXES = ['SOURCES__', 'DESTINATION__', 'RUNTIME__', 'NORMALIZE__', 'EXTRACT__', 'LOAD__', 'DLT_'];

/**
 * Names that steer Quarry, its children or the runtimes they load: writing one from a source's form would
 * silence the log, move the Python environments or preload a library; reading one would hand a source what is
 * not its own.
 */
const PLATFORM_NAMES = new Set([...PROCESS_BASICS, 'SHELL', 'PWD', 'TMP', 'TEMP', 'NO_COLOR', 'HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'ALL_PROXY', 'VIRTUAL_ENV']);
const PLATFORM_PREFIXES = ['QUARRY_', 'LD_', 'NODE_', 'NPM_', 'PYTHON', 'DBT_', 'SUPERSET_', 'DUCKDB_', 'PG', 'GIT_', 'SSL_', 'LC_', ...DLT_PREFIXES];

const ENV_REFERENCE = /^env:([A-Z_][A-Z0-9_]*)$/;

/**
 * The environment variables a source reads its credentials from: the values of its section's `*_env` fields and
 * its `env:NAME` references, nested ones included. Nothing else of the environment is the source's.
 */
export function credentialVariables(source: SourceConfig): string[] {
  const section: unknown = (source as unknown as Record<string, unknown>)[SOURCE_TYPES[source.type].section];
  const found = new Set<string>();
  collectVariables(section, found);
  return [...found];
}

function collectVariables(value: unknown, found: Set<string>): void {
  if (typeof value === 'string') {
    const name = ENV_REFERENCE.exec(value)?.[1];
    if (name !== undefined) found.add(name);
    return;
  }
  if (Array.isArray(value)) {
    for (const item of value) collectVariables(item, found);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  for (const [field, item] of Object.entries(value)) {
    if (field.endsWith('_env') && typeof item === 'string' && item !== '') found.add(item);
    else collectVariables(item, found);
  }
}

/**
 * What reading `source` may see of `env`: its declared variables and the process basics (dlt's settings too
 * for a source that runs an admin's code), so a source test or sync never holds another's credential.
 */
export function sourceEnvironment(source: SourceConfig, env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const declared = new Set([...credentialVariables(source), ...PROCESS_BASICS]);
  const runsCode = SOURCE_TYPES[source.type].runsCode;
  const visible: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (declared.has(name) || (runsCode && DLT_PREFIXES.some((prefix) => name.startsWith(prefix)))) visible[name] = value;
  }
  return visible;
}

/** The credential values `source` holds in `env`, to redact from anything it says (four characters or more). */
export function sourceSecretValues(source: SourceConfig, env: Readonly<Record<string, string | undefined>>): string[] {
  return credentialVariables(source).map((name) => env[name] ?? '').filter((value) => value.length >= 4);
}

/** `text` with every occurrence of each secret value, and of its URL-encoded form, replaced by `***`. */
export function redactValues(text: string, secrets: readonly string[]): string {
  let redacted = text;
  for (const secret of secrets) {
    redacted = redacted.replaceAll(secret, '***');
    const encoded = encodeURIComponent(secret);
    if (encoded !== secret) redacted = redacted.replaceAll(encoded, '***');
  }
  return redacted;
}

/** A variable a source may not declare, and whose it is. */
export class VariableNotOwnedError extends InvalidRequestError {
  override readonly code = 'variable_not_allowed';
}

/**
 * Refuses, before anything is written or run, a source that declares a variable belonging to Quarry, the project's
 * settings (the alerts, logins and warehouse name theirs with `*_env`) or another source, and credentials given
 * for a variable the source does not declare: a form configures its own source's credentials, nothing else.
 */
export function assertOwnVariables(paths: ProjectPaths, source: SourceConfig, secretNames: Iterable<string>): void {
  const declared = credentialVariables(source);
  for (const name of secretNames) {
    if (!declared.includes(name)) {
      const its = declared.length === 0 ? 'declares no variable' : `declares ${declared.join(', ')}`;
      throw new VariableNotOwnedError(`A credential was given for ${name}, which the source does not read: its section ${its}`);
    }
  }
  const projectVariables = new Set<string>();
  collectVariables(loadProjectConfig(paths), projectVariables);
  const otherSources = loadSources(paths).filter((other) => other.name !== source.name);
  for (const name of declared) {
    if (PLATFORM_NAMES.has(name) || PLATFORM_PREFIXES.some((prefix) => name.startsWith(prefix))) {
      throw new VariableNotOwnedError(`${name} belongs to Quarry or its runtime, not to a source: name another variable for the credential`);
    }
    if (projectVariables.has(name)) throw new VariableNotOwnedError(`${name} belongs to the project's settings (project.yml), not to a source: name another variable`);
    const owner = otherSources.find((other) => credentialVariables(other).includes(name));
    if (owner !== undefined) throw new VariableNotOwnedError(`${name} belongs to the source ${owner.name}: name another variable for this source's credential`);
  }
}
