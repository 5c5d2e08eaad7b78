import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicOf, bearerOf, records, startFakeApi, type FakeApi } from '../support/fake-api.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { syncAndWait } from '../support/sync.ts';

interface Item { id: number; name: string; updated_at: string; tags: string[]; owner: { id: number; email: string } }

const ITEMS = records(250, (n): Item => ({
  id: n, name: `item ${String(n)}`, updated_at: new Date(Date.UTC(2026, 0, 1) + n * 3_600_000).toISOString(),
  tags: n % 2 === 0 ? ['even'] : ['odd', 'x'], owner: { id: n % 7, email: `owner${String(n % 7)}@example.com` },
}));

let items: Item[] = [...ITEMS];
let api: FakeApi;
let issuedTokens = 0;

beforeAll(async () => {
  api = await startFakeApi((app) => {
    // Offset pages with a total, behind a bearer token.
    app.get('/v1/items', (request, reply) => {
      if (bearerOf(request) !== 'secret-token') return reply.code(401).send({ message: 'bad token' });
      const query = request.query as Record<string, string | undefined>;
      const since = query.updated_since;
      const matching = items.filter((item) => since === undefined || item.updated_at > since);
      const offset = Number(query.offset ?? 0);
      const limit = Number(query.limit ?? 100);
      return { total: matching.length, data: matching.slice(offset, offset + limit) };
    });
    // A next URL in the body, behind basic auth.
    app.get('/v1/people', (request, reply) => {
      const credentials = basicOf(request);
      if (credentials?.user !== 'ann' || credentials.password !== 'pw') return reply.code(401).send({ message: 'who?' });
      const page = Number((request.query as { page?: string }).page ?? 1);
      const next = page < 3 ? `/v1/people?page=${String(page + 1)}` : null;
      return { results: records(10, (n) => ({ id: (page - 1) * 10 + n, page })), next };
    });
    // Link header pages, an API key in the query.
    app.get('/v1/events', (request, reply) => {
      const query = request.query as Record<string, string | undefined>;
      if (query.key !== 'k1') return reply.code(403).send({ message: 'no key' });
      const page = Number(query.page ?? 1);
      if (page < 2) void reply.header('link', `<${api.url}/v1/events?page=${String(page + 1)}&key=k1>; rel="next"`);
      return records(5, (n) => ({ id: (page - 1) * 5 + n }));
    });
    // Client-credentials token endpoint and a protected cursor-paged resource.
    app.post('/oauth/token', (request, reply) => {
      const credentials = basicOf(request);
      const body = request.body as Record<string, string>;
      if (credentials?.user !== 'client' || credentials.password !== 'shh' || body.grant_type !== 'client_credentials') {
        return reply.code(401).send({ error: 'invalid_client' });
      }
      issuedTokens += 1;
      return { access_token: `token-${String(issuedTokens)}`, token_type: 'bearer', expires_in: 3600 };
    });
    app.get('/v1/orders', (request, reply) => {
      if (bearerOf(request)?.startsWith('token-') !== true) return reply.code(401).send({ message: 'no token' });
      const cursor = Number((request.query as { cursor?: string }).cursor ?? 0);
      const page = records(4, (n) => ({ id: cursor + n, lines: [{ sku: `s${String(cursor + n)}`, qty: n }] }));
      return { orders: page, next_cursor: cursor + 4 < 12 ? String(cursor + 4) : null };
    });
    app.get('/v1/loop', () => ({ data: [{ id: 1 }], next: '/v1/loop?again=1' }));
    app.get('/v1/quiet', () => ({ data: [] }));
    app.get('/v1/elsewhere', () => ({ data: [{ id: 1 }], next: 'http://127.0.0.2:9/steal' }));
    app.get('/v1/moved', (_request, reply) => reply.redirect('http://127.0.0.2:9/v1/moved', 302));
    app.get('/v1/moved-here', (_request, reply) => reply.redirect('/v1/dupes', 301));
    app.get('/v1/dupes', () => ({ data: [{ id: 1, v: 'first' }, { id: 2, v: 'only' }, { id: 1, v: 'last' }] }));
  });
});

afterAll(async () => {
  await api.close();
});

function sourcesYaml(endpoints: string, auth: string, name = 'shop'): string {
  return `sources:\n  - name: ${name}\n    type: rest_api\n    rest_api:\n      base_url: ${api.url}/v1\n${auth}\n      endpoints:\n${endpoints}\n`;
}

describe('rest_api sources', () => {
  let quarry: TestQuarry;

  afterAll(async () => {
    await quarry.close();
  });

  it('pages through offsets with a bearer token, loads nested fields as STRUCT and LIST, and merges incremental re-syncs', async () => {
    items = [...ITEMS];
    quarry = await startQuarry({
      env: { SHOP_TOKEN: 'secret-token' },
      sourcesYaml: sourcesYaml([
        '        - path: /items',
        '          paginator: { type: offset, limit: 100, total_path: total }',
        '          data_selector: data',
        '          primary_key: id',
        '          incremental: { cursor_path: updated_at, param: updated_since }',
      ].join('\n'), '      auth_type: bearer\n      auth_token_env: SHOP_TOKEN'),
    });
    const first = await syncAndWait(quarry, 'shop');
    expect(first).toMatchObject({ type: 'sync_completed', rows: 250 });
    const rows = await quarry.query('SELECT count(*) AS n, max(id) AS top FROM raw_shop.items');
    expect(rows[0]).toEqual({ n: 250, top: 250 });
    const types = await quarry.query("SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'raw_shop' AND table_name = 'items'");
    const typeOf = new Map(types.map((row) => [row.column_name, row.data_type]));
    expect(typeOf.get('tags')).toBe('VARCHAR[]');
    expect(String(typeOf.get('owner'))).toMatch(/^STRUCT\(id BIGINT, email VARCHAR\)$/);
    const nested = await quarry.query('SELECT owner.email AS email, tags[1] AS tag FROM raw_shop.items WHERE id = 3');
    expect(nested[0]).toEqual({ email: 'owner3@example.com', tag: 'odd' });
    const offsets = api.requests.filter((request) => request.path === '/v1/items').map((request) => request.query.get('offset'));
    expect(offsets).toEqual([null, '100', '200']);

    // Upstream: one item changed, one added. Only those are asked for (the cursor), and merged on id.
    const changed = { ...ITEMS[9]!, name: 'renamed', updated_at: '2027-01-01T00:00:00.000Z' };
    items = [...ITEMS.slice(0, 9), changed, ...ITEMS.slice(10), { ...ITEMS[0]!, id: 251, updated_at: '2027-01-02T00:00:00.000Z' }];
    const before = api.requests.length;
    const second = await syncAndWait(quarry, 'shop');
    expect(second).toMatchObject({ type: 'sync_completed', rows: 2 });
    expect(api.requests[before]?.query.get('updated_since')).toBe(ITEMS[249]!.updated_at);
    const after = await quarry.query("SELECT count(*) AS n, count(*) FILTER (WHERE name = 'renamed') AS renamed FROM raw_shop.items");
    expect(after[0]).toEqual({ n: 251, renamed: 1 });
    expect((await quarry.ctx.store.sourceState.forSource('shop')).get('items')).toBe('2027-01-02T00:00:00.000Z');
  });

  it('a missing credential names the variable and sends no request', async () => {
    await quarry.close();
    quarry = await startQuarry({
      sourcesYaml: sourcesYaml('        - path: /items', '      auth_type: bearer\n      auth_token_env: MISSING_TOKEN'),
    });
    const before = api.requests.length;
    const end = await syncAndWait(quarry, 'shop');
    expect(end.type === 'sync_failed' ? end.error : '').toMatch(/^The environment variable MISSING_TOKEN is not set/);
    expect(api.requests.length).toBe(before);
  });

  it('follows next URLs with basic auth, Link headers with a query key, and cursors behind a client-credentials token', async () => {
    await quarry.close();
    quarry = await startQuarry({
      env: { USER_ENV: 'ann', PASS_ENV: 'pw' },
      sourcesYaml: sourcesYaml('        - path: /people', '      auth_type: basic\n      basic_username_env: USER_ENV\n      basic_password_env: PASS_ENV'),
    });
    expect(await syncAndWait(quarry, 'shop')).toMatchObject({ type: 'sync_completed', rows: 30 });
    expect(await quarry.query('SELECT count(DISTINCT id) AS n, max(page) AS pages FROM raw_shop.people')).toEqual([{ n: 30, pages: 3 }]);
    await quarry.close();

    quarry = await startQuarry({
      env: { KEY_ENV: 'k1' },
      sourcesYaml: sourcesYaml('        - path: /events', '      auth_type: api_key\n      auth_token_env: KEY_ENV\n      api_key_name: key\n      api_key_location: query'),
    });
    expect(await syncAndWait(quarry, 'shop')).toMatchObject({ type: 'sync_completed', rows: 10 });
    await quarry.close();

    quarry = await startQuarry({
      env: { CLIENT_ID: 'client', CLIENT_SECRET: 'shh' },
      sourcesYaml: sourcesYaml('        - path: /orders\n          primary_key: id', [
        '      auth_type: oauth2_client_credentials', `      access_token_url: ${api.url}/oauth/token`,
        '      client_id_env: CLIENT_ID', '      client_secret_env: CLIENT_SECRET',
      ].join('\n')),
    });
    const tokensBefore = issuedTokens;
    expect(await syncAndWait(quarry, 'shop')).toMatchObject({ type: 'sync_completed', rows: 12 });
    expect(await syncAndWait(quarry, 'shop')).toMatchObject({ type: 'sync_completed', rows: 12 });
    expect(issuedTokens - tokensBefore).toBe(1); // cached between requests and syncs
    expect(await quarry.query('SELECT count(*) AS n, sum(lines[1].qty) AS qty FROM raw_shop.orders')).toEqual([{ n: 12, qty: 30 }]);
  });

  it('keeps one row per primary key, the last extracted, on a first load and on a full refresh too', async () => {
    await quarry.close();
    quarry = await startQuarry({ sourcesYaml: sourcesYaml('        - path: /dupes\n          primary_key: id', '      auth_type: none') });
    for (const fullRefresh of [false, true]) {
      expect(await syncAndWait(quarry, 'shop', fullRefresh)).toMatchObject({ type: 'sync_completed', rows: 2 });
      expect(await quarry.query('SELECT id, v FROM raw_shop.dupes ORDER BY id')).toEqual([{ id: 1, v: 'last' }, { id: 2, v: 'only' }]);
    }
  });

  it('re-reads the lookback window without walking the saved cursor backwards when nothing is new', async () => {
    await quarry.close();
    quarry = await startQuarry({
      sourcesYaml: sourcesYaml([
        '        - path: /quiet', '          primary_key: id',
        '          incremental: { cursor_path: updated_at, param: since, initial_value: "2026-01-10T00:00:00.000Z" }',
      ].join('\n'), '      auth_type: none').replace('    rest_api:', '    lookback_days: 3\n    rest_api:'),
    });
    for (let sync = 0; sync < 2; sync++) {
      expect(await syncAndWait(quarry, 'shop')).toMatchObject({ type: 'sync_completed' });
      expect(api.requests.at(-1)?.query.get('since')).toBe('2026-01-07T00:00:00.000Z');
      expect((await quarry.ctx.store.sourceState.forSource('shop')).get('quiet')).toBe('2026-01-10T00:00:00.000Z');
    }
  });

  it('never sends credentials to another host: neither a next page nor a redirect elsewhere is followed', async () => {
    await quarry.close();
    quarry = await startQuarry({
      env: { SHOP_TOKEN: 'secret-token' },
      sourcesYaml: sourcesYaml('        - path: /elsewhere\n        - path: /moved\n        - path: /moved-here', '      auth_type: bearer\n      auth_token_env: SHOP_TOKEN'),
    });
    const end = await syncAndWait(quarry, 'shop');
    expect(end.type === 'sync_failed' ? end.error : '').toBe(
      "elsewhere: the API pointed the next page at http://127.0.0.2:9, another host; Quarry does not send the source's credentials there",
    );
    await quarry.close();
    quarry = await startQuarry({
      env: { SHOP_TOKEN: 'secret-token' },
      sourcesYaml: sourcesYaml('        - path: /moved-here\n        - path: /moved', '      auth_type: bearer\n      auth_token_env: SHOP_TOKEN'),
    });
    const moved = await syncAndWait(quarry, 'shop');
    expect(moved.type === 'sync_failed' ? moved.error : '').toBe(
      `GET ${api.url}/v1/moved redirected to http://127.0.0.2:9; Quarry does not send the source's credentials to another host (point base_url at it if the API moved)`,
    );
    // The same-host redirect was followed (the first endpoint loaded before the second failed the sync).
    expect(api.requests.some((request) => request.path === '/v1/dupes' && request.headers.authorization === 'Bearer secret-token')).toBe(true);
  });

  it('stops an API that pages forever, and a DNS failure names the host', async () => {
    await quarry.close();
    quarry = await startQuarry({
      sourcesYaml: [
        sourcesYaml('        - path: /loop', '      auth_type: none', 'looping').trimEnd(),
        '  - name: nowhere', '    type: rest_api', '    rest_api:', '      base_url: http://no-such-host.invalid/api', '      auth_type: none',
        '      endpoints:', '        - path: /things', '',
      ].join('\n'),
    });
    const loop = await syncAndWait(quarry, 'looping');
    expect(loop.type === 'sync_failed' ? loop.error : '').toMatch(/^loop: the API sent the same next page twice/);
    const dns = await syncAndWait(quarry, 'nowhere');
    expect(dns.type === 'sync_failed' ? dns.error : '').toBe('Could not resolve the host name no-such-host.invalid (DNS lookup failed)');
  });
});
