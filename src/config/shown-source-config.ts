import { isEnvReference } from '../sources/type-definition/index.ts';
import type { SourceConfig } from './sources-config.ts';

const MASK = '***';

/**
 * A source's configuration as the API shows it, to viewers too: header values masked, since a header is where a
 * credential hides even when it does not look like one (`env:NAME` references stay: they name, not hold, a secret).
 */
export function shownSourceConfig(source: SourceConfig): SourceConfig {
  if (source.type !== 'rest_api' || source.rest_api.headers === undefined) return source;
  const headers = Object.fromEntries(Object.entries(source.rest_api.headers).map(([name, value]) => [name, isEnvReference(value) ? value : MASK]));
  return { ...source, rest_api: { ...source.rest_api, headers } };
}
