import type { ProjectConfig } from '../../config/index.ts';
import { credentialVariables, projectVariables } from './source-variables.ts';
import type { SourceConfig } from './sources-config.ts';

/** What stands where a secret was. */
export const REDACTED = '***';
/** Shorter values would blank out ordinary words; no credential is this short. */
const MIN_SECRET_LENGTH = 4;

/**
 * The ways a secret reaches a message: as it is, in a URL, base64-encoded (without the padding, which a longer
 * encoded text does not have at that place) or escaped inside a JSON string.
 */
function formsOf(secret: string): string[] {
  return [secret, encodeURIComponent(secret), Buffer.from(secret).toString('base64').replace(/=+$/, ''), JSON.stringify(secret).slice(1, -1)];
}

/** One pattern for every form of every secret, longest first so that a secret inside a longer one leaves no tail. */
function patternOf(secrets: Iterable<string>): RegExp | undefined {
  const forms = new Set([...secrets].filter((secret) => secret.length >= MIN_SECRET_LENGTH).flatMap(formsOf));
  if (forms.size === 0) return undefined;
  const alternatives = [...forms].sort((a, b) => b.length - a.length).map((form) => form.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&'));
  return new RegExp(alternatives.join('|'), 'g');
}

function redactWith(pattern: RegExp | undefined, text: string): string {
  return pattern === undefined ? text : text.replace(pattern, REDACTED);
}

/** `text` with every form of each of `secrets` (four characters or more) replaced by `***`. */
export function redactValues(text: string, secrets: Iterable<string>): string {
  return redactWith(patternOf(secrets), text);
}

/**
 * Every value the platform knows to be secret (each source's declared credentials and the project's own: the
 * alerts', logins' and warehouse's `*_env`), taken out of whatever leaves the process: log lines, events, the
 * activity log and job errors, health and alerts. Until it learns a secret, it costs a comparison per call.
 */
export class SecretRedactor {
  #pattern: RegExp | undefined;

  /** Learns the secrets anew from the configuration and environment as they are now (at start, and after a reload). */
  learn(config: ProjectConfig, sources: readonly SourceConfig[], env: Readonly<Record<string, string | undefined>>): void {
    const names = new Set([...projectVariables(config), ...sources.flatMap(credentialVariables)]);
    this.#pattern = patternOf([...names].map((name) => env[name] ?? ''));
  }

  redact(text: string): string {
    return redactWith(this.#pattern, text);
  }

  /** `value` with each string in it redacted, however deep (an event, a report); keys and other values kept. */
  redactStrings<T>(value: T): T {
    const pattern = this.#pattern;
    if (pattern === undefined) return value;
    const walk = (item: unknown): unknown => {
      if (typeof item === 'string') return redactWith(pattern, item);
      if (Array.isArray(item)) return item.map(walk);
      if (item === null || typeof item !== 'object') return item;
      return Object.fromEntries(Object.entries(item).map(([key, field]) => [key, walk(field)]));
    };
    return walk(value) as T;
  }

  /**
   * A JSON log line with each string in it redacted. Parsed only when a secret's form appears in it: replacing
   * inside the raw line could cut an escape sequence in two.
   */
  redactJsonLine(line: string): string {
    const pattern = this.#pattern;
    if (pattern === undefined || line.search(pattern) < 0) return line;
    try {
      return `${JSON.stringify(this.redactStrings(JSON.parse(line)))}\n`;
    } catch {
      return redactWith(pattern, line);
    }
  }
}
