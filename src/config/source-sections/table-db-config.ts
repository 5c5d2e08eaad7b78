import { z } from 'zod';
import { EnvVarName, StringList } from './field-types.ts';
import { genericConfig } from './generic-config.ts';
import { defineSourceType } from '../source-type-definition.ts';

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

export const tableDbType = defineSourceType({
  key: 'table_db', category: 'Marketing & Analytics', authType: 'API Key', wizard: true, incremental: false,
  section: 'generic', schema: TableDbConfig,
});
