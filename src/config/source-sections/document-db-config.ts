import { z } from 'zod';
import { EnvVarName, NonEmptyString, StringList } from './field-types.ts';
import { genericConfig } from './generic-config.ts';
import { defineSourceType } from '../source-type-definition.ts';

export const DocumentDbConfig = genericConfig({
  /** Names the variable holding a `mongodb://` or `mongodb+srv://` connection URL. */
  credentials_env: EnvVarName.default('DOCUMENT_DB_URL'),
  /** The URL's database when absent. */
  database: NonEmptyString.optional(),
  /** Absent means every collection of the database. */
  collections: StringList.optional(),
  /** Collection → cursor field (a date, number, string or ObjectId; dotted paths reach into documents), for merge loads on `_id`. */
  incremental: z.record(NonEmptyString, NonEmptyString).optional(),
  /** Documents per cursor batch from the server, and per write to the staging area. */
  batch_size: z.int().positive().max(100_000).default(1_000),
}).superRefine((config, context) => {
  if (config.collections === undefined || config.incremental === undefined) return;
  for (const name of Object.keys(config.incremental)) {
    if (!config.collections.includes(name)) {
      context.addIssue({ code: 'custom', path: ['incremental', name], input: name, message: `${name} is not one of the collections listed (${config.collections.join(', ')})` });
    }
  }
});
export type DocumentDbConfig = z.output<typeof DocumentDbConfig>;

export const documentDbType = defineSourceType({
  key: 'document_db', category: 'Databases', authType: 'Basic', wizard: true, incremental: true,
  section: 'generic', schema: DocumentDbConfig,
});
