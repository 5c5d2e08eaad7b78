import type { FastifyReply, FastifyRequest } from 'fastify';
import { bearerOf, records, startFakeApi, type FakeApi } from '../support/fake-api.ts';
import type { ContractVendor } from './contract-vendor.ts';

type AsanaObject = { gid: string; resource_type: string } & Record<string, unknown>;

export interface AsanaAccountData {
  workspaces: AsanaObject[];
  /** Keyed by workspace gid. */
  projects: Record<string, AsanaObject[]>;
  /** Keyed by project gid; a task in two projects is listed under both. */
  tasks: Record<string, AsanaObject[]>;
  /** Keyed by workspace gid. */
  users: Record<string, AsanaObject[]>;
}

/** The personal access token the fake accepts; a test may change it to revoke the one a source holds. */
export interface AsanaAccount {
  token: string;
}

const MAX_LIMIT = 100;

/**
 * Asana's REST API: personal access tokens as bearer, `{data, next_page: {offset}}` pages asked with
 * `limit` and `offset`, compact records unless `opt_fields` names more, and `modified_since` on tasks.
 */
export async function startAsanaFake(data: AsanaAccountData, account: AsanaAccount): Promise<FakeApi> {
  return startFakeApi((app) => {
    app.addHook('preHandler', async (request, reply) => {
      if (bearerOf(request) === account.token) return undefined;
      return reply.code(401).send({
        errors: [{ message: 'Not Authorized', help: 'For more information on API status codes and how to handle them, read the docs on errors: https://developers.asana.com/docs/errors' }],
      });
    });

    app.get('/api/1.0/workspaces', (request, reply) => page(request, reply, data.workspaces));
    app.get('/api/1.0/projects', (request, reply) => {
      const workspace = (request.query as { workspace?: string }).workspace;
      if (workspace === undefined) return badRequest(reply, 'workspace: Missing input');
      return page(request, reply, data.projects[workspace] ?? []);
    });
    app.get('/api/1.0/tasks', (request, reply) => {
      const query = request.query as { project?: string; modified_since?: string };
      if (query.project === undefined) return badRequest(reply, 'Must specify exactly one of project, tag, section, user task list, or assignee + workspace');
      const since = query.modified_since === undefined ? Number.NEGATIVE_INFINITY : Date.parse(query.modified_since);
      if (Number.isNaN(since)) return badRequest(reply, 'modified_since: Not a valid datetime');
      return page(request, reply, (data.tasks[query.project] ?? []).filter((task) => Date.parse(String(task.modified_at)) >= since));
    });
    app.get('/api/1.0/users', (request, reply) => {
      const workspace = (request.query as { workspace?: string }).workspace;
      return page(request, reply, workspace === undefined ? Object.values(data.users).flat() : data.users[workspace] ?? []);
    });
  });
}

function badRequest(reply: FastifyReply, message: string): FastifyReply {
  return reply.code(400).send({ errors: [{ message, help: 'For more information on API status codes and how to handle them, read the docs on errors: https://developers.asana.com/docs/errors' }] });
}

/** One page; the offset is an opaque token (here the position, base64), valid for the same query only. */
function page(request: FastifyRequest, reply: FastifyReply, objects: readonly AsanaObject[]): unknown {
  const query = request.query as { limit?: string; offset?: string; opt_fields?: string };
  const fields = query.opt_fields?.split(',') ?? ['name'];
  const projected = objects.map((object) => project(object, fields));
  if (query.limit === undefined) return { data: projected };
  const limit = Number(query.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) return badRequest(reply, 'limit: Must be between 1 and 100');
  const start = query.offset === undefined ? 0 : Number(Buffer.from(query.offset, 'base64').toString('utf8'));
  if (!Number.isInteger(start)) return badRequest(reply, 'offset: Your pagination token is invalid.');
  const following = start + limit < projected.length ? Buffer.from(String(start + limit)).toString('base64') : undefined;
  const url = new URL(request.url, 'http://fake');
  if (following !== undefined) url.searchParams.set('offset', following);
  return {
    data: projected.slice(start, start + limit),
    next_page: following === undefined ? null : { offset: following, path: `${url.pathname.replace('/api/1.0', '')}${url.search}`, uri: `https://app.asana.com${url.pathname}${url.search}` },
  };
}

/** The fields `opt_fields` names (dotted paths reach into objects and lists of objects), with gid and resource_type always. */
function project(object: unknown, fields: readonly string[]): unknown {
  if (Array.isArray(object)) return object.map((item) => project(item, fields));
  if (object === null || typeof object !== 'object') return object;
  const source = object as Record<string, unknown>;
  const result: Record<string, unknown> = { gid: source.gid, ...(source.resource_type === undefined ? {} : { resource_type: source.resource_type }) };
  const nested = new Map<string, string[]>();
  for (const field of fields) {
    const [head = '', ...rest] = field.split('.');
    if (rest.length === 0) result[head] = source[head] ?? null;
    else nested.set(head, [...(nested.get(head) ?? []), rest.join('.')]);
  }
  for (const [head, inner] of nested) result[head] = project(source[head] ?? null, inner);
  return result;
}

/** One workspace and project with 150 tasks (two pages). */
export const asanaContract: ContractVendor = {
  type: 'task_tracker',
  async start() {
    const account: AsanaAccount = { token: '2/contract' };
    const at = (n: number): string => new Date(Date.UTC(2026, 0, 1) + n * 3_600_000).toISOString();
    const api = await startAsanaFake({
      workspaces: [{ gid: '1001', resource_type: 'workspace', name: 'Acme' }],
      projects: { 1001: [{ gid: '2001', resource_type: 'project', name: 'Launch' }] },
      tasks: { 2001: records(150, (n) => ({ gid: String(5000 + n), resource_type: 'task', name: `Task ${String(n)}`, modified_at: at(n), created_at: at(n) })) },
      users: { 1001: [] },
    }, account);
    return {
      api, env: { TASK_TRACKER_ACCESS_TOKEN: account.token }, pagedPath: '/api/1.0/tasks', table: 'tasks', key: 'gid',
      section: ['generic_config:', `  base_url: ${api.url}/api/1.0`],
      revoke() {
        account.token = '2/revoked';
        return () => { account.token = '2/contract'; };
      },
      refusal: (url) => `GET ${url}/api/1.0/workspaces answered 401 Unauthorized: Not Authorized`,
    };
  },
};
