import type { FastifyReply, FastifyRequest } from 'fastify';
import { bearerOf, startFakeApi, type FakeApi } from '../support/fake-api.ts';
import type { ContractVendor } from './contract-vendor.ts';

export interface NotionWorkspace {
  databases: Record<string, unknown>[];
  /** Every page shared with the integration, database rows among them (their parent is the database). */
  pages: { id: string; parent: { type: string; database_id?: string }; [field: string]: unknown }[];
  users: Record<string, unknown>[];
}

/** The integration token the fake accepts; a test may change it to revoke the one a source holds. */
export interface NotionAccount {
  token: string;
}

const MAX_PAGE_SIZE = 100;

/**
 * Notion's public API: integration tokens as bearer plus a required `Notion-Version` header; POST
 * search and database queries paged by `start_cursor` in the body, GET lists by `start_cursor` in the
 * query; `has_more` and `next_cursor` in every list.
 */
export async function startNotionFake(workspace: NotionWorkspace, account: NotionAccount): Promise<FakeApi> {
  return startFakeApi((app) => {
    app.addHook('preHandler', async (request, reply) => {
      if (bearerOf(request) !== account.token) {
        return reply.code(401).send(notionError(401, 'unauthorized', 'API token is invalid.'));
      }
      const version = request.headers['notion-version'];
      if (typeof version !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(version)) {
        return reply.code(400).send(notionError(400, 'missing_version', `Notion-Version header failed validation: Notion-Version header should be defined, instead was \`${String(version)}\`.`));
      }
      return undefined;
    });

    app.post('/v1/search', (request, reply) => {
      const body = (request.body ?? {}) as { filter?: { property: string; value: string }; start_cursor?: string; page_size?: number };
      const objects = body.filter?.value === 'database' ? workspace.databases
        : body.filter?.value === 'page' ? workspace.pages : [...workspace.databases, ...workspace.pages];
      return list(reply, objects, body.start_cursor, body.page_size);
    });

    app.post('/v1/databases/:id/query', (request, reply) => {
      const id = normalized((request.params as { id: string }).id);
      if (!workspace.databases.some((database) => normalized(String(database.id)) === id)) {
        return reply.code(404).send(notionError(404, 'object_not_found', `Could not find database with ID: ${id}. Make sure the relevant pages and databases are shared with your integration.`));
      }
      const body = (request.body ?? {}) as { start_cursor?: string; page_size?: number };
      const rows = workspace.pages.filter((page) => normalized(page.parent.database_id ?? '') === id);
      return list(reply, rows, body.start_cursor, body.page_size);
    });

    app.get('/v1/users', (request: FastifyRequest, reply) => {
      const query = request.query as { start_cursor?: string; page_size?: string };
      return list(reply, workspace.users, query.start_cursor, query.page_size === undefined ? undefined : Number(query.page_size));
    });
  });
}

function notionError(status: number, code: string, message: string): Record<string, unknown> {
  return { object: 'error', status, code, message, request_id: '2f9d9c3e-0000-4000-8000-000000000000' };
}

function normalized(id: string): string {
  return id.replaceAll('-', '').toLowerCase();
}

/** A list answer: the cursor of the next page is the id of its first object, as Notion's opaque cursors are. */
function list(reply: FastifyReply, objects: readonly unknown[], startCursor: string | undefined, pageSize = MAX_PAGE_SIZE): unknown {
  if (pageSize > MAX_PAGE_SIZE) return reply.code(400).send(notionError(400, 'validation_error', 'body failed validation: body.page_size should be ≤ `100`.'));
  const start = startCursor === undefined ? 0 : objects.findIndex((object) => (object as { id: string }).id === startCursor);
  if (start < 0) return reply.code(400).send(notionError(400, 'validation_error', 'The start_cursor provided is invalid.'));
  const following = objects[start + pageSize] as { id: string } | undefined;
  return { object: 'list', results: objects.slice(start, start + pageSize), next_cursor: following?.id ?? null, has_more: following !== undefined, type: 'page_or_database', page_or_database: {} };
}

/** One shared database of 150 rows, queried 100 a page. */
export const notionContract: ContractVendor = {
  type: 'notes',
  async start() {
    const databaseId = '8e2c4b1a-3333-4aaa-9bbb-000000000003';
    const edited = new Date(Date.UTC(2026, 0, 1)).toISOString();
    const rows = Array.from({ length: 150 }, (_, index) => ({
      object: 'page', id: `5a5a5a5a-0003-4000-8000-${String(index + 1).padStart(12, '0')}`, created_time: edited, last_edited_time: edited,
      parent: { type: 'database_id', database_id: databaseId }, properties: { Name: { id: 'title', type: 'title', title: [] } },
    }));
    const account: NotionAccount = { token: 'secret_NotionContractToken' };
    const api = await startNotionFake({ databases: [{ object: 'database', id: databaseId, title: [], properties: {} }], pages: rows, users: [] }, account);
    const compact = databaseId.replaceAll('-', '');
    return {
      api, env: { NOTES_API_KEY: account.token }, pagedPath: `/v1/databases/${compact}/query`, table: 'database_rows', key: 'id',
      section: ['generic_config:', `  base_url: ${api.url}/v1`, `  database_ids: ["${compact}"]`, '  resources: [database_rows]'],
      revoke() {
        account.token = 'secret_Revoked';
        return () => { account.token = 'secret_NotionContractToken'; };
      },
      refusal: (url) => `POST ${url}/v1/databases/${compact}/query answered 401 Unauthorized: API token is invalid.`,
    };
  },
};
