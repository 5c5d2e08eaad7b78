import type { FastifyReply, FastifyRequest } from 'fastify';
import { bearerOf, records, startFakeApi, type FakeApi } from '../support/fake-api.ts';
import type { ContractVendor } from './contract-vendor.ts';

/** A CRM object as HubSpot's v3 API returns it: an id, its properties as text, and its timestamps. */
export interface HubSpotObject {
  id: string;
  properties: Record<string, string | null>;
  createdAt: string;
  updatedAt: string;
  archived: boolean;
}

export interface HubSpotData {
  /** Keyed by object type (contacts, companies, deals, tickets, products, quotes). */
  objects: Record<string, HubSpotObject[]>;
  owners: Record<string, unknown>[];
  /** Keyed by object type (contacts, deals...). */
  properties: Record<string, Record<string, unknown>[]>;
  /** Keyed by object type (deals, tickets). */
  pipelines: Record<string, Record<string, unknown>[]>;
}

/** The private app token the fake accepts; a test may change it to revoke the one a source holds. */
export interface HubSpotAccount {
  token: string;
}

const MAX_LIST_LIMIT = 100;
const MAX_SEARCH_LIMIT = 200;
/** HubSpot's search endpoints page no further than this many results. */
const SEARCH_RESULT_CAP = 10_000;

interface SearchFilter { propertyName: string; operator: string; value?: string }
interface SearchBody {
  filterGroups?: { filters: SearchFilter[] }[];
  sorts?: { propertyName: string; direction: 'ASCENDING' | 'DESCENDING' }[];
  limit?: number;
  after?: string;
}

/** HubSpot's CRM API v3: private app tokens as bearer, `paging.next.after` cursors, and the search endpoint's filters. */
export async function startHubSpotFake(data: HubSpotData, account: HubSpotAccount): Promise<FakeApi> {
  return startFakeApi((app) => {
    app.addHook('preHandler', async (request, reply) => {
      if (bearerOf(request) === account.token) return undefined;
      return reply.code(401).send({
        status: 'error',
        message: 'Authentication credentials not found. This API supports OAuth 2.0 authentication and you can find more details at https://developers.hubspot.com/docs/methods/auth/oauth-overview',
        correlationId: 'b0e4e0b4-51b3-4bc1-9a3b-0f2f3c3d3e3f',
        category: 'INVALID_AUTHENTICATION',
      });
    });

    app.get('/crm/v3/objects/:object', (request, reply) => {
      const objects = objectsOf(request, reply);
      if (objects === undefined) return reply;
      const query = request.query as Record<string, string | undefined>;
      const limit = Math.min(Number(query.limit ?? 10), MAX_LIST_LIMIT);
      const archived = query.archived === 'true';
      const listed = objects.filter((object) => object.archived === archived).sort((a, b) => Number(a.id) - Number(b.id));
      const start = query.after === undefined ? 0 : listed.findIndex((object) => Number(object.id) >= Number(query.after));
      const page = start < 0 ? [] : listed.slice(start, start + limit);
      const following = start < 0 ? undefined : listed[start + limit];
      return { results: page, ...(following === undefined ? {} : pagingAfter(following.id)) };
    });

    app.post('/crm/v3/objects/:object/search', (request, reply) => {
      const objects = objectsOf(request, reply);
      if (objects === undefined) return reply;
      const body = (request.body ?? {}) as SearchBody;
      const limit = Math.min(body.limit ?? 10, MAX_SEARCH_LIMIT);
      const offset = Number(body.after ?? 0);
      if (offset + limit > SEARCH_RESULT_CAP) {
        return reply.code(400).send({ status: 'error', message: 'Search results are capped at 10,000', category: 'VALIDATION_ERROR' });
      }
      const matching = objects.filter((object) => !object.archived && matchesAnyGroup(object, body.filterGroups ?? []));
      const sorted = sortObjects(matching, body.sorts ?? []);
      const next = offset + limit < sorted.length ? pagingAfter(String(offset + limit)) : {};
      return { total: sorted.length, results: sorted.slice(offset, offset + limit), ...next };
    });

    app.get('/crm/v3/owners', (request) => {
      const query = request.query as Record<string, string | undefined>;
      const limit = Math.min(Number(query.limit ?? 100), 500);
      const offset = Number(query.after ?? 0);
      const next = offset + limit < data.owners.length ? pagingAfter(String(offset + limit)) : {};
      return { results: data.owners.slice(offset, offset + limit), ...next };
    });

    app.get('/crm/v3/properties/:object', (request) => ({ results: data.properties[(request.params as { object: string }).object] ?? [] }));

    app.get('/crm/v3/pipelines/:object', (request, reply) => {
      const pipelines = data.pipelines[(request.params as { object: string }).object];
      if (pipelines === undefined) return reply.code(400).send({ status: 'error', message: 'Unable to infer object type', category: 'VALIDATION_ERROR' });
      return { results: pipelines };
    });
  });

  function objectsOf(request: FastifyRequest, reply: FastifyReply): HubSpotObject[] | undefined {
    const type = (request.params as { object: string }).object;
    const objects = data.objects[type];
    if (objects === undefined) {
      void reply.code(400).send({ status: 'error', message: `Unable to infer object type from: ${type}`, category: 'OBJECT_NOT_FOUND' });
    }
    return objects;
  }
}

function pagingAfter(after: string): { paging: { next: { after: string; link: string } } } {
  return { paging: { next: { after, link: `?after=${after}` } } };
}

/** Groups are ORed, the filters of a group ANDed; datetime values compare as epoch milliseconds. */
function matchesAnyGroup(object: HubSpotObject, groups: readonly { filters: SearchFilter[] }[]): boolean {
  if (groups.length === 0) return true;
  return groups.some((group) => group.filters.every((filter) => matches(object, filter)));
}

function matches(object: HubSpotObject, filter: SearchFilter): boolean {
  const actual = comparable(object.properties[filter.propertyName] ?? null);
  const expected = comparable(filter.value ?? null);
  if (actual === null || expected === null) return filter.operator === 'NOT_HAS_PROPERTY' && actual === null;
  switch (filter.operator) {
    case 'EQ': return actual === expected;
    case 'GT': return actual > expected;
    case 'GTE': return actual >= expected;
    case 'LT': return actual < expected;
    case 'LTE': return actual <= expected;
    default: return false;
  }
}

function comparable(value: string | null): number | string | null {
  if (value === null) return null;
  if (/^\d+$/.test(value)) return Number(value);
  const time = Date.parse(value);
  return Number.isNaN(time) ? value : time;
}

function sortObjects(objects: HubSpotObject[], sorts: SearchBody['sorts'] & object): HubSpotObject[] {
  const sort = sorts[0];
  if (sort === undefined) return [...objects].sort((a, b) => Number(a.id) - Number(b.id));
  const direction = sort.direction === 'DESCENDING' ? -1 : 1;
  return [...objects].sort((a, b) => {
    const left = comparable(a.properties[sort.propertyName] ?? null) ?? 0;
    const right = comparable(b.properties[sort.propertyName] ?? null) ?? 0;
    return (left < right ? -1 : left > right ? 1 : 0) * direction;
  });
}

/** A portal with 150 contacts (two pages of the list, then the search for changes). */
export const hubspotContract: ContractVendor = {
  type: 'crm_a',
  async start() {
    const at = (n: number): string => new Date(Date.UTC(2026, 0, 1) + n * 3_600_000).toISOString();
    const account: HubSpotAccount = { token: 'pat-na1-contract' };
    const contacts = records(150, (n): HubSpotObject => ({
      id: String(n), createdAt: at(n), updatedAt: at(n), archived: false,
      properties: { hs_object_id: String(n), createdate: at(n), lastmodifieddate: at(n), email: `person${String(n)}@example.com` },
    }));
    const api = await startHubSpotFake({ objects: { contacts }, owners: [], properties: {}, pipelines: {} }, account);
    return {
      api, env: { CRM_A_API_KEY: account.token }, pagedPath: '/crm/v3/objects/contacts', table: 'contacts', key: 'id',
      section: ['crm_a:', '  resources: [contacts]', `  base_url: ${api.url}`],
      revoke() {
        account.token = 'pat-na1-rotated';
        return () => { account.token = 'pat-na1-contract'; };
      },
      refusal: (url) => new RegExp(`^POST ${url}/crm/v3/objects/contacts/search answered 401 Unauthorized: Authentication credentials not found\\.`),
    };
  },
};
