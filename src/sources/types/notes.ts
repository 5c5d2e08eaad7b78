import { z } from 'zod';
import { bearerAuth, bodyCursor, cursorParam, headerAuth, requireEnv, restSessionConnector, type AuthStrategy, type RestResource } from '../rest/index.ts';
import { EnvVarName, resourceList, genericConfig, defineSourceType } from '../type-definition/index.ts';

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

/** The API version every request pins; Notion changes shapes between versions. */
const NOTION_VERSION = '2022-06-28';
const PAGE_SIZE = 100;
const nextStartCursor = bodyCursor('next_cursor', 'start_cursor');

function searchResource(name: 'databases' | 'pages', object: 'database' | 'page'): RestResource {
  return {
    name, path: '/search', method: 'POST', body: { filter: { property: 'object', value: object }, page_size: PAGE_SIZE },
    dataSelector: 'results', paginator: nextStartCursor,
  };
}

function rowsResource(databaseId: string): RestResource {
  return {
    name: 'database_rows', path: `/databases/${databaseId}/query`, method: 'POST', body: { page_size: PAGE_SIZE },
    dataSelector: 'results', paginator: nextStartCursor,
  };
}

const usersResource: RestResource = {
  name: 'users', path: '/users', params: { page_size: PAGE_SIZE }, dataSelector: 'results', paginator: cursorParam('next_cursor', 'start_cursor'),
};

function notionAuth(token: string): AuthStrategy {
  const bearer = bearerAuth(token);
  const version = headerAuth('notion-version', NOTION_VERSION);
  return {
    async apply(request) {
      await bearer.apply(request);
      await version.apply(request);
    },
  };
}

/** `notes`: a Notion workspace through the public API, as far as the integration's pages and databases are shared with it. */
const notesConnector = restSessionConnector<NotesConfig>({
  baseUrl: () => 'https://api.notion.com/v1',
  auth: (config, env) => notionAuth(requireEnv(env, config.api_key_env, 'a Notion integration token')),
  async extract(session, config) {
    const wanted = new Set(config.resources);
    const listsDatabases = wanted.has('databases') || (wanted.has('database_rows') && config.database_ids === undefined);
    const databases = listsDatabases ? await session.collect(searchResource('databases', 'database'), { stage: wanted.has('databases') }) : [];
    if (wanted.has('database_rows')) {
      const ids = config.database_ids ?? databases.map((database) => String(database.id));
      for (const id of ids) await session.extract(rowsResource(id));
    }
    if (wanted.has('pages')) await session.extract(searchResource('pages', 'page'));
    if (wanted.has('users')) await session.extract(usersResource);
  },
});

export const notesType = defineSourceType({
  key: 'notes', category: 'Files & Storage', authType: 'API Key', wizard: true, incremental: false,
  section: 'generic', schema: NotesConfig,
  resources: RESOURCES,
  connector: notesConnector,
});
