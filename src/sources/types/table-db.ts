import { z } from 'zod';
import { bearerAuth, cursorParam, requireEnv, restSessionConnector, singlePage, type RestResource } from '../rest/index.ts';
import { SyncFailedError } from '../sync-failed-error.ts';
import { EnvVarName, StringList, genericConfig, defineSourceType } from '../type-definition/index.ts';
import { snakeCase } from './snake-case.ts';

/** Airtable base ids are `app` and 14 letters or digits, as the base's URL shows them. */
const BaseId = z.string().regex(/^app[A-Za-z0-9]{14}$/, {
  error: (issue) => `${JSON.stringify(issue.input)} is not an Airtable base id: it starts with "app" followed by 14 letters or digits`,
});

export const TableDbConfig = genericConfig({
  base_id: BaseId,
  /** Table names or ids (`tbl...`); absent means every table of the base. */
  table_names: StringList.optional(),
  access_token_env: EnvVarName.default('TABLE_DB_ACCESS_TOKEN'),
});
export type TableDbConfig = z.output<typeof TableDbConfig>;

const PAGE_SIZE = 100;

/** The warehouse table of an Airtable table: its name in snake_case (`Sales Leads` → sales_leads). */
function tableNameOf(airtableName: string): string {
  const name = snakeCase(airtableName);
  return /^[a-z]/.test(name) ? name : `table_${name}`;
}

function recordsResource(config: TableDbConfig, table: string): RestResource {
  return {
    name: tableNameOf(table),
    path: `/${config.base_id}/${encodeURIComponent(table)}`,
    params: { pageSize: PAGE_SIZE },
    dataSelector: 'records',
    paginator: cursorParam('offset', 'offset'),
  };
}

/** Every table of the base, from the metadata API (needs the `schema.bases:read` scope). */
function schemaResource(config: TableDbConfig): RestResource {
  return { name: 'tables', path: `/meta/bases/${config.base_id}/tables`, dataSelector: 'tables', paginator: singlePage };
}

function assertDistinctNames(tables: readonly string[]): void {
  const seen = new Map<string, string>();
  for (const table of tables) {
    const other = seen.get(tableNameOf(table));
    if (other !== undefined) throw new SyncFailedError(`The Airtable tables "${other}" and "${table}" would both load into ${tableNameOf(table)}; list one of them in table_names`);
    seen.set(tableNameOf(table), table);
  }
}

/** `table_db`: the tables of one Airtable base through the Web API, with a personal access token. */
const tableDbConnector = restSessionConnector<TableDbConfig>({
  baseUrl: () => 'https://api.airtable.com/v0',
  auth: (config, env) => bearerAuth(requireEnv(env, config.access_token_env, 'an Airtable personal access token')),
  async extract(session, config) {
    const tables = config.table_names
      ?? (await session.collect(schemaResource(config), { stage: false })).map((table) => String(table.name));
    assertDistinctNames(tables);
    for (const table of tables) await session.extract(recordsResource(config, table));
  },
});

export const tableDbType = defineSourceType({
  key: 'table_db', category: 'Marketing & Analytics', authType: 'API Key', wizard: true, incremental: false,
  section: 'generic', schema: TableDbConfig,
  connector: tableDbConnector,
});
