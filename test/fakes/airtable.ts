import { bearerOf, records, startFakeApi, type FakeApi } from '../support/fake-api.ts';
import type { ContractVendor } from './contract-vendor.ts';

export interface AirtableRecord {
  id: string;
  createdTime: string;
  /** Airtable leaves empty fields out of a record. */
  fields: Record<string, unknown>;
}

export interface AirtableTable {
  id: string;
  name: string;
  fields: { id: string; name: string; type: string }[];
  records: AirtableRecord[];
}

export interface AirtableBase {
  id: string;
  tables: AirtableTable[];
}

/** The personal access token the fake accepts; a test may change it to revoke the one a source holds. */
export interface AirtableAccount {
  token: string;
}

const MAX_PAGE_SIZE = 100;

/**
 * Airtable's Web API for one base: personal access tokens as bearer, records listed by table name or
 * id with `pageSize` and an opaque `offset`, and the metadata API's table list.
 */
export async function startAirtableFake(base: AirtableBase, account: AirtableAccount): Promise<FakeApi> {
  return startFakeApi((app) => {
    app.addHook('preHandler', async (request, reply) => {
      if (bearerOf(request) === account.token) return undefined;
      return reply.code(401).send({ error: { type: 'AUTHENTICATION_REQUIRED', message: 'Authentication required' } });
    });

    app.get('/v0/meta/bases/:baseId/tables', (request, reply) => {
      if ((request.params as { baseId: string }).baseId !== base.id) return reply.code(404).send({ error: { type: 'NOT_FOUND' } });
      return {
        tables: base.tables.map((table) => ({
          id: table.id, name: table.name, primaryFieldId: table.fields[0]?.id, fields: table.fields, views: [{ id: `viw${table.id.slice(3)}`, name: 'Grid view', type: 'grid' }],
        })),
      };
    });

    app.get('/v0/:baseId/:table', (request, reply) => {
      const { baseId, table: nameOrId } = request.params as { baseId: string; table: string };
      if (baseId !== base.id) return reply.code(404).send({ error: { type: 'NOT_FOUND' } });
      const table = base.tables.find((candidate) => candidate.name === nameOrId || candidate.id === nameOrId);
      if (table === undefined) {
        return reply.code(404).send({ error: { type: 'TABLE_NOT_FOUND', message: `Could not find table ${nameOrId} in application ${baseId}` } });
      }
      const query = request.query as Record<string, string | undefined>;
      const pageSize = Math.min(Number(query.pageSize ?? MAX_PAGE_SIZE), MAX_PAGE_SIZE);
      let start = 0;
      if (query.offset !== undefined) {
        const [, recordId] = query.offset.split('/');
        start = table.records.findIndex((record) => record.id === recordId);
        if (start < 0) return reply.code(422).send({ error: { type: 'LIST_RECORDS_ITERATOR_NOT_AVAILABLE' } });
      }
      const following = table.records[start + pageSize];
      return { records: table.records.slice(start, start + pageSize), ...(following === undefined ? {} : { offset: `itrFake${table.id.slice(3)}/${following.id}` }) };
    });
  });
}

/** A base with one table of 150 records (two pages). */
export const airtableContract: ContractVendor = {
  type: 'table_db',
  async start() {
    const base = 'appContract000001';
    const account: AirtableAccount = { token: 'patContract.0000' };
    const api = await startAirtableFake({
      id: base,
      tables: [{
        id: 'tblTasks00000001', name: 'Tasks', fields: [{ id: 'fld1', name: 'Name', type: 'singleLineText' }],
        records: records(150, (n) => ({ id: `recT${String(n).padStart(13, '0')}`, createdTime: new Date(Date.UTC(2026, 0, 1) + n * 60_000).toISOString(), fields: { Name: `Task ${String(n)}` } })),
      }],
    }, account);
    return {
      api, env: { TABLE_DB_ACCESS_TOKEN: account.token }, pagedPath: `/v0/${base}/Tasks`, table: 'tasks', key: 'id',
      section: ['generic_config:', `  base_url: ${api.url}/v0`, `  base_id: ${base}`],
      revoke() {
        account.token = 'patREVOKED';
        return () => { account.token = 'patContract.0000'; };
      },
      refusal: (url) => `GET ${url}/v0/meta/bases/${base}/tables answered 401 Unauthorized: Authentication required`,
    };
  },
};
