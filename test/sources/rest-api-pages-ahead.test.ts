// Pages fetched ahead: a page_number or offset endpoint has up to `concurrency` requests in flight while pages are
// written, a cursor endpoint one; the records arrive whole and in order either way, and Retry-After quiets them all.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../../src/sources/rest/index.ts';
import { OutboundPolicy } from '../../src/sources/index.ts';
import { records, startFakeApi, type FakeApi } from '../support/fake-api.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { syncAndWait } from '../support/sync.ts';

const PAGES = 12;
const PAGE_SIZE = 25;
const TOTAL = PAGES * PAGE_SIZE;

let api: FakeApi;
let inFlight = 0;
let mostInFlight = 0;

/** Answers after a short wait, counting how many requests it holds at once. */
async function counted<T>(answer: () => T): Promise<T> {
  inFlight += 1;
  mostInFlight = Math.max(mostInFlight, inFlight);
  try {
    await sleep(20);
    return answer();
  } finally {
    inFlight -= 1;
  }
}

const item = (id: number) => ({ id, name: `item ${String(id)}` });

beforeAll(async () => {
  api = await startFakeApi((app) => {
    app.get('/v1/numbered', (request) => counted(() => {
      const page = Number((request.query as { page?: string }).page ?? 1);
      const data = page <= PAGES ? records(PAGE_SIZE, (n) => item((page - 1) * PAGE_SIZE + n)) : [];
      return { data, total_pages: PAGES };
    }));
    // No total: the end shows as a short page, so pages guessed past it are fetched and dropped.
    app.get('/v1/offsets', (request) => counted(() => {
      const query = request.query as { offset?: string; limit?: string };
      const offset = Number(query.offset ?? 0);
      const limit = Number(query.limit ?? 10);
      return { data: records(Math.max(0, Math.min(limit, TOTAL - offset - 5)), (n) => item(offset + n)) };
    }));
    app.get('/v1/cursored', (request) => counted(() => {
      const cursor = Number((request.query as { cursor?: string }).cursor ?? 0);
      return { data: records(PAGE_SIZE, (n) => item(cursor + n)), next_cursor: cursor + PAGE_SIZE < TOTAL ? String(cursor + PAGE_SIZE) : null };
    }));
    app.get('/v1/one', () => ({ ok: true }));
  });
});

afterAll(async () => {
  await api.close();
});

function sourcesYaml(endpoint: string, concurrency?: number): string {
  return [
    'sources:', '  - name: shop', '    type: rest_api', '    rest_api:', `      base_url: ${api.url}/v1`, '      auth_type: none',
    ...concurrency === undefined ? [] : [`      concurrency: ${String(concurrency)}`],
    '      endpoints:', endpoint, '',
  ].join('\n');
}

describe('rest_api pages fetched ahead', () => {
  let quarry: TestQuarry | undefined;
  afterAll(async () => {
    await quarry?.close();
  });

  const syncWith = async (yaml: string): Promise<{ ids: number[]; mostInFlight: number; requests: number }> => {
    await quarry?.close();
    quarry = await startQuarry({ sourcesYaml: yaml });
    mostInFlight = 0;
    const before = api.requests.length;
    expect(await syncAndWait(quarry, 'shop', true)).toMatchObject({ type: 'sync_completed' });
    const rows = await quarry.query('SELECT id FROM raw_shop.items ORDER BY id');
    return { ids: rows.map((row) => Number(row.id)), mostInFlight, requests: api.requests.length - before };
  };
  const endpoint = (path: string, paginator: string) => `        - { path: ${path}, table_name: items, data_selector: data, paginator: ${paginator} }`;
  const allIds = Array.from({ length: TOTAL }, (_, index) => index + 1);

  it('keeps four page_number requests in flight by default, and stops at the total without asking past it', async () => {
    const synced = await syncWith(sourcesYaml(endpoint('/numbered', '{ type: page_number, total_path: total_pages }')));
    expect(synced.ids).toEqual(allIds);
    expect(synced.mostInFlight).toBe(4);
    expect(synced.requests).toBe(PAGES);
  });

  it('reads page by page with concurrency 1', async () => {
    const synced = await syncWith(sourcesYaml(endpoint('/numbered', '{ type: page_number, total_path: total_pages }'), 1));
    expect(synced.ids).toEqual(allIds);
    expect(synced.mostInFlight).toBe(1);
  });

  it('fetches offsets ahead without a total, drops the pages guessed past the end, and loads each record once', async () => {
    const synced = await syncWith(sourcesYaml(endpoint('/offsets', '{ type: offset, limit: 10 }'), 3));
    expect(synced.ids).toEqual(allIds.slice(0, TOTAL - 5));
    expect(synced.mostInFlight).toBe(3);
  });

  it('waits for each answer of a cursor paginator, whatever the concurrency', async () => {
    const synced = await syncWith(sourcesYaml(endpoint('/cursored', '{ type: cursor, cursor_path: next_cursor, cursor_param: cursor }'), 8));
    expect(synced.ids).toEqual(allIds);
    expect(synced.mostInFlight).toBe(1);
  });

  it('loads every page once when a page fetched ahead is refused with 429 and retried', async () => {
    api.inject({ status: 429, atRequest: 5, pathPrefix: '/v1/numbered', retryAfterSeconds: 1 });
    const synced = await syncWith(sourcesYaml(endpoint('/numbered', '{ type: page_number, total_path: total_pages }')));
    expect(synced.ids).toEqual(allIds);
    expect(synced.requests).toBe(PAGES + 1);
  });
});

describe('Retry-After', () => {
  it('holds back every request of the client, not only the refused one', async () => {
    api.inject({ status: 429, atRequest: 1, pathPrefix: '/v1/one', retryAfterSeconds: 1 });
    const started: Promise<unknown>[] = [];
    const http = new HttpClient({
      signal: new AbortController().signal,
      outbound: new OutboundPolicy([new URL(api.url).hostname]),
      // Called once the 429 is in: a request started now must wait out the same second.
      onRetry: () => { started.push(http.request({ url: new URL(`${api.url}/v1/one?second=1`), method: 'GET', headers: {} })); },
    });
    const before = api.requests.length;
    await http.request({ url: new URL(`${api.url}/v1/one?first=1`), method: 'GET', headers: {} });
    await Promise.all(started);
    const seen = api.requests.slice(before);
    const refusedAt = seen.find((request) => request.answeredWithFault === 429)?.receivedAt ?? Number.NaN;
    const second = seen.find((request) => request.query.get('second') === '1')?.receivedAt ?? Number.NaN;
    // A lower bound only: a busy machine can make the wait longer, never shorter.
    expect(second - refusedAt).toBeGreaterThanOrEqual(950);
  });
});
