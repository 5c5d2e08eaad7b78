import { z } from 'zod';
import { EnvVarName, NonEmptyString, StringList } from './field-types.ts';
import { genericConfig } from './generic-config.ts';
import { defineSourceType } from '../source-type-definition.ts';

export const RelationalDbConfig = genericConfig({
  /** Names the variable holding a `postgresql://` or `mysql://` connection URL. */
  credentials_env: EnvVarName.optional(),
  schema: NonEmptyString.optional(),
  /** Absent means every table of the schema. */
  table_names: StringList.optional(),
  /** Table → cursor column, for append or merge loads. */
  incremental: z.record(NonEmptyString, NonEmptyString).optional(),
});
export type RelationalDbConfig = z.output<typeof RelationalDbConfig>;

export const relationalDbType = defineSourceType({
  key: 'relational_db', category: 'Databases', authType: 'Basic', wizard: true, incremental: true,
  section: 'generic', schema: RelationalDbConfig,
});
