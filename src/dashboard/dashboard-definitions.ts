import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { Logger } from '../logger.ts';

const Identifier = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a column name: letters, digits and underscores');
const Dataset = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z_][A-Za-z0-9_]*$/, 'schema.table, e.g. marts.revenue_by_month');
const Metric = z.string().min(1).max(500).describe('an aggregate SQL expression, e.g. SUM(revenue)');
const common = { title: z.string().min(1).max(250), dataset: Dataset };

const ChartDefinition = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('big_number'), ...common, metric: Metric }),
  z.strictObject({ type: z.literal('bar'), ...common, x: Identifier, metric: Metric }),
  z.strictObject({ type: z.literal('pie'), ...common, group_by: Identifier, metric: Metric }),
  z.strictObject({
    type: z.literal('table'), ...common, columns: z.array(Identifier).min(1).max(50),
    order_by: Identifier.optional(), descending: z.boolean().default(true), limit: z.number().int().min(1).max(10_000).default(100),
  }),
]);

const DashboardFile = z.strictObject({
  title: z.string().min(1).max(500),
  charts: z.array(ChartDefinition).min(1).max(50),
});

export type ChartDefinition = z.infer<typeof ChartDefinition>;

/** A dashboard the project ships (dashboards/<slug>.json), created in Superset once. */
export interface DashboardDefinition extends z.infer<typeof DashboardFile> {
  readonly slug: string;
}

const SLUG_FILE = /^([a-z0-9][a-z0-9_-]{0,63})\.json$/;
const MAX_FILE_BYTES = 1024 * 1024;

/** Reads dashboards/*.json; a file that does not parse is logged with the reason and skipped. */
export function loadDashboardDefinitions(directory: string, log: Logger): DashboardDefinition[] {
  let names: string[];
  try {
    names = readdirSync(directory).sort();
  } catch {
    return [];
  }
  const definitions: DashboardDefinition[] = [];
  for (const name of names) {
    if (!name.endsWith('.json')) continue;
    const file = path.join(directory, name);
    const slug = SLUG_FILE.exec(name)?.[1];
    if (slug === undefined) {
      log.warn({ file }, 'dashboard file skipped: its name must be a slug (lower-case letters, digits, - and _) followed by .json');
      continue;
    }
    const stats = lstatSync(file);
    if (!stats.isFile() || stats.size > MAX_FILE_BYTES) {
      log.warn({ file }, 'dashboard file skipped: it must be a regular file (not a link) of at most 1 MB');
      continue;
    }
    let content: unknown;
    try {
      content = JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      // Not the parser's message: it quotes the file's first bytes.
      log.warn({ file }, 'dashboard file skipped: it is not readable JSON');
      continue;
    }
    const parsed = DashboardFile.safeParse(content);
    if (parsed.success) definitions.push({ slug, ...parsed.data });
    else log.warn({ file, problems: z.prettifyError(parsed.error) }, 'dashboard file skipped: it does not match the dashboard format');
  }
  return definitions;
}
