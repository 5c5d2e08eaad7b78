import { z } from 'zod';
import { EnvVarName, resourceList } from './field-types.ts';
import { genericConfig } from './generic-config.ts';
import { defineSourceType } from '../source-type-definition.ts';

const RESOURCES = {
  default: ['databases', 'database_rows', 'pages'],
  available: ['databases', 'database_rows', 'pages', 'users'],
} as const;

/** Notion ids are UUIDs, written with or without dashes (a database's URL shows them without). */
const NotionId = z.string().regex(/^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i, {
  error: (issue) => `${JSON.stringify(issue.input)} is not a Notion database id: 32 hexadecimal digits, with or without dashes`,
});

export const NotesConfig = genericConfig({
  api_key_env: EnvVarName.default('NOTES_API_KEY'),
  /** Databases whose rows are loaded; absent means every database shared with the integration. */
  database_ids: z.array(NotionId).min(1).optional(),
  resources: resourceList(RESOURCES),
});
export type NotesConfig = z.output<typeof NotesConfig>;

export const notesType = defineSourceType({
  key: 'notes', category: 'Files & Storage', authType: 'API Key', wizard: true, incremental: false,
  section: 'generic', schema: NotesConfig,
  resources: RESOURCES,
});
