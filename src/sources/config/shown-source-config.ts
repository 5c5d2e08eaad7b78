import { isEnvReference } from '../type-definition/index.ts';
import type { SourceConfig } from './sources-config.ts';

export const MASK = '***';

/**
 * A source's configuration as the API shows it, to viewers too: header values masked, since a header is where a
 * credential hides even when it does not look like one (`env:NAME` references stay: they name, not hold, a secret).
 */
export function shownSourceConfig(source: SourceConfig): SourceConfig {
  if (source.type !== 'rest_api' || source.rest_api.headers === undefined) return source;
  return { ...source, rest_api: { ...source.rest_api, headers: maskedHeaders(source.rest_api.headers) } };
}

/** Header values masked, `env:NAME` references kept. */
export function maskedHeaders(headers: Readonly<Record<string, unknown>>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, typeof value === 'string' && isEnvReference(value) ? value : MASK]));
}
