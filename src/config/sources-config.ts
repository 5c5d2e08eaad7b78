// TEMPORARY minimal version (being replaced by the full 35-type schema).
import { stringify } from 'yaml';
import { z } from 'zod';
import { parseOrThrow } from './format-issues.ts';
import { readYaml } from './read-yaml.ts';

const Common = z.object({
  name: z.string().regex(/^[a-z][a-z0-9_]*$/),
  type: z.string(),
  enabled: z.boolean().default(true),
  description: z.string().optional(),
  tags: z.array(z.string()).default([]),
  lookback_days: z.number().int().min(0).optional(),
}).loose();

interface CommonFields { name: string; enabled: boolean; description?: string; tags: string[]; lookback_days?: number }
export type SourceConfig = CommonFields & (
  | { type: 'local_files'; local_files: { directory: string; file_pattern: string } }
  | { type: 'csv'; csv: { directory: string; file_pattern: string } }
  | { type: 'rest_api' | 'crm_a' }
);

export function parseSources(text: string, label = 'sources.yml'): readonly SourceConfig[] {
  const data = parseOrThrow(z.object({ sources: z.array(Common).default([]) }), readYaml(text, label) ?? {}, label);
  return Object.freeze(data.sources as SourceConfig[]);
}

export function serializeSources(sources: readonly SourceConfig[]): string {
  return stringify({ sources });
}

export function defaultSourcesYaml(): string {
  return '# Sources: one list item each, with a section named after its type.\nsources: []\n';
}
