import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Connector, TableSpec } from '../connector.ts';
import { restSessionConnector, singlePage, valueAt } from '../rest/index.ts';
import { SyncFailedError } from '../sync-failed-error.ts';
import { HttpUrl, NonEmptyString, StringList, defineSourceType } from '../type-definition/index.ts';
import { googleOAuthBearer } from './google-credentials.ts';
import { snakeCase } from './snake-case.ts';

export const DEDUPLICATION_MODES = ['none', 'latest_only', 'append_only', 'scd_type2'] as const;

export const SpreadsheetsSection = z.strictObject({
  spreadsheet_url_or_id: NonEmptyString,
  /** Sheet or tab names. */
  range_names: StringList,
  deduplication: z.enum(DEDUPLICATION_MODES).default('latest_only'),
  base_url: HttpUrl.optional(),
});
export type SpreadsheetsSection = z.output<typeof SpreadsheetsSection>;

const SHEETS_API = 'https://sheets.googleapis.com';
/** The version key of a row under scd_type2: the same values give the same key. */
export const ROW_HASH_COLUMN = '_row_hash';

/** The id of a spreadsheet, from its id or any URL of it (`https://docs.google.com/spreadsheets/d/<id>/edit#gid=0`). */
export function spreadsheetIdOf(urlOrId: string): string {
  const fromUrl = /\/spreadsheets\/d\/([A-Za-z0-9_-]+)/.exec(urlOrId);
  return fromUrl?.[1] ?? urlOrId.trim();
}

/** A range's table: its sheet's name (`'Q1 Orders'!A1:F` → q1_orders). */
export function tableNameOfRange(range: string): string {
  const sheet = range.includes('!') ? range.slice(0, range.lastIndexOf('!')) : range;
  const name = snakeCase(sheet.replace(/^'(.*)'$/, '$1').replace(/''/g, "'"));
  return name === '' ? 'sheet' : name;
}

/** Column names from the header row: snake_case, `column_<n>` for an empty cell, a suffix for a repeated name. */
function columnNames(header: readonly unknown[]): string[] {
  const seen = new Map<string, number>();
  return header.map((cell, index) => {
    const base = snakeCase(typeof cell === 'string' || typeof cell === 'number' ? String(cell) : '') || `column_${String(index + 1)}`;
    const count = (seen.get(base) ?? 0) + 1;
    seen.set(base, count);
    return count === 1 ? base : `${base}_${String(count)}`;
  });
}

/** The rows of a values response as records keyed by the first row; trailing empty cells, which the API omits, read as null. */
function rowsAsRecords(body: unknown): Record<string, unknown>[] {
  const values = valueAt(body, 'values');
  if (!Array.isArray(values) || values.length === 0) return [];
  const [header, ...rows] = values as unknown[][];
  const columns = columnNames(header ?? []);
  return rows
    .filter((row) => row.some((cell) => cell !== '' && cell !== null))
    .map((row) => Object.fromEntries(columns.map((column, index) => [column, row[index] ?? null])));
}

function withRowHash(record: Record<string, unknown>): Record<string, unknown> {
  const hash = createHash('sha256').update(JSON.stringify(Object.entries(record))).digest('hex');
  return { ...record, [ROW_HASH_COLUMN]: hash };
}

function tableSpecOf(name: string, deduplication: SpreadsheetsSection['deduplication']): TableSpec {
  switch (deduplication) {
    case 'latest_only': return { name, disposition: 'replace' };
    case 'none':
    case 'append_only': return { name, disposition: 'append' };
    case 'scd_type2': return { name, disposition: 'history', primaryKey: [ROW_HASH_COLUMN] };
  }
}

/** `spreadsheets`: Google Sheets API v4, one table per range, its first row the header. */
const spreadsheetsConnector: Connector = {
  async extract(context, sink) {
    const connector = restSessionConnector<SpreadsheetsSection>({
      baseUrl: () => SHEETS_API,
      auth: () => googleOAuthBearer(context.oauthAccessToken),
      async extract(session, section) {
        const id = spreadsheetIdOf(section.spreadsheet_url_or_id);
        const tables = new Set<string>();
        for (const range of section.range_names) {
          const name = tableNameOfRange(range);
          if (tables.has(name)) throw new SyncFailedError(`The ranges of ${section.spreadsheet_url_or_id} name the sheet ${name} twice; give each sheet one range`);
          tables.add(name);
          const records = await session.collect({
            name,
            path: `/v4/spreadsheets/${encodeURIComponent(id)}/values/${encodeURIComponent(range)}`,
            // Numbers and booleans as such; dates as the sheet shows them, since serial numbers mean nothing in SQL.
            params: { majorDimension: 'ROWS', valueRenderOption: 'UNFORMATTED_VALUE', dateTimeRenderOption: 'FORMATTED_STRING' },
            dataSelector: rowsAsRecords,
            paginator: singlePage,
          }, { stage: false });
          const history = section.deduplication === 'scd_type2';
          await sink.table(tableSpecOf(name, section.deduplication)).write(history ? records.map(withRowHash) : records);
        }
      },
    });
    await connector.extract(context, sink);
  },
};

export const spreadsheetsType = defineSourceType({
  key: 'spreadsheets', category: 'Marketing & Analytics', authType: 'OAuth', wizard: true, incremental: false,
  section: 'own', schema: SpreadsheetsSection,
  connector: spreadsheetsConnector,
});
