import type { CursorState, RecordSink, TableSpec } from '../connector.ts';
import { SyncFailedError } from '../sync-failed-error.ts';
import type { AuthStrategy } from './auth.ts';
import { describeUrl, HttpStatusError, type HttpClient, type HttpRequest, type HttpResponse } from './http-client.ts';
import { valueAt } from './json-path.ts';
import { PagesAhead, pageKey } from './pages-ahead.ts';
import { paginatorFrom, type Paginator, type PaginatorSpec } from './paginators.ts';

export type QueryValue = string | number | boolean;

/** Where a resource's cursor goes in a request: a query parameter, or a function for APIs that take it elsewhere. */
export interface IncrementalSpec {
  /** Where the cursor sits in each record, as a dotted path (`updated_at`, `properties.hs_lastmodifieddate`). */
  readonly cursorPath: string;
  readonly param?: string;
  readonly apply?: (request: HttpRequest, since: string | number) => void;
  readonly initialValue?: string | number;
  /** How the value is written into the request; ISO text by default, `unix` seconds for APIs that count them. */
  readonly format?: 'iso' | 'unix';
}

/** One table of a REST source: which endpoint, how its pages go, where its records sit, how they are keyed. */
export interface RestResource {
  readonly name: string;
  /** Relative to the source's base URL, or absolute. */
  readonly path: string;
  readonly method?: 'GET' | 'POST';
  readonly params?: Readonly<Record<string, QueryValue>>;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * Dotted path to the records in a response, or a function that picks them out (and may throw for an
   * error a vendor answers with 200); found by looking when absent.
   */
  readonly dataSelector?: string | ((body: unknown) => unknown);
  readonly paginator?: PaginatorSpec | Paginator;
  readonly primaryKey?: readonly string[];
  /** For a keyless resource of dated rows: where each row's day is, so a backfill replaces only its window's rows. */
  readonly windowColumn?: string;
  readonly incremental?: IncrementalSpec;
  /** Which records to stage, for a bound the API cannot apply itself; pagination still sees every record of a page. */
  readonly keep?: (record: Record<string, unknown>) => boolean;
  /** Reshapes each record before it is staged (flattening a vendor's envelope, say). */
  readonly mapRecord?: (record: Record<string, unknown>) => Record<string, unknown>;
  readonly maxPages?: number;
}

export interface ResourceContext {
  readonly baseUrl: string;
  readonly auth: AuthStrategy;
  readonly http: HttpClient;
  readonly state: CursorState;
  readonly sink: RecordSink;
  readonly fullRefresh: boolean;
  readonly lookbackDays: number | undefined;
  /** How many requests of one resource may be in flight: pages fetched ahead of the one being written. */
  readonly concurrency: number;
  readonly log: (level: 'INFO' | 'WARNING', message: string) => void;
}

const DEFAULT_MAX_PAGES = 100_000;
const RECORD_LIST_KEYS = ['data', 'results', 'items', 'records', 'elements', 'entries', 'values', 'objects', 'rows'];

export function tableSpecOf(resource: RestResource): TableSpec {
  if (resource.primaryKey !== undefined && resource.primaryKey.length > 0) {
    return { name: resource.name, disposition: 'merge', primaryKey: resource.primaryKey };
  }
  if (resource.incremental === undefined) {
    return { name: resource.name, disposition: 'replace', ...(resource.windowColumn === undefined ? {} : { windowColumn: resource.windowColumn }) };
  }
  return { name: resource.name, disposition: 'append' };
}

/** Fetches every page of a resource into the sink and, when it is incremental, records the highest cursor seen. */
export async function extractResource(resource: RestResource, context: ResourceContext): Promise<number> {
  const writer = context.sink.table(tableSpecOf(resource));
  const paginator = isPaginator(resource.paginator) ? resource.paginator : paginatorFrom(resource.paginator);
  let request = firstRequest(resource, context);
  const saved = savedCursor(resource, context);
  const since = saved === undefined || context.lookbackDays === undefined || context.fullRefresh ? saved : minusDays(saved, context.lookbackDays);
  if (since !== undefined && resource.incremental !== undefined) applyCursor(request, resource.incremental, since);
  // From the saved value, not the looked-back one: syncs that find nothing must not walk the cursor backwards.
  let highest = saved;
  let total = 0;
  const seen = new Set<string>();
  const maxPages = resource.maxPages ?? DEFAULT_MAX_PAGES;
  const pages = new PagesAhead((next) => send(next, context), paginator, context.concurrency);
  for (let page = 1; ; page += 1) {
    const response = await pages.fetch(request);
    const records = selectRecords(response, resource, request);
    if (page < maxPages) pages.fetchAfter(request, response, records);
    const mapped = resource.mapRecord === undefined ? records : records.map(resource.mapRecord);
    const kept = resource.keep === undefined ? mapped : mapped.filter(resource.keep);
    await writer.write(kept);
    total += kept.length;
    if (resource.incremental !== undefined) highest = highestCursor(highest, kept, resource.incremental.cursorPath);
    const next = paginator.next(request, response, records);
    if (next === undefined) break;
    if (next.url.origin !== request.url.origin) {
      // The next page would carry the source's credentials: only to the host that asked for them.
      throw new SyncFailedError(`${resource.name}: the API pointed the next page at ${next.url.origin}, another host; Quarry does not send the source's credentials there`);
    }
    const key = pageKey(next);
    if (seen.has(key)) {
      throw new SyncFailedError(`${resource.name}: the API sent the same next page twice (${describeUrl(next.url)}); stopping instead of looping`);
    }
    seen.add(key);
    if (page >= maxPages) throw new SyncFailedError(`${resource.name}: more than ${String(maxPages)} pages; stopping (raise max_pages if the API really has that many)`);
    request = next;
  }
  if (resource.incremental !== undefined && highest !== undefined) context.state.set(resource.name, highest);
  return total;
}

function isPaginator(value: RestResource['paginator']): value is Paginator {
  return typeof (value as Paginator | undefined)?.next === 'function';
}

function firstRequest(resource: RestResource, context: ResourceContext): HttpRequest {
  const base = context.baseUrl.endsWith('/') ? context.baseUrl : `${context.baseUrl}/`;
  let url: URL;
  try {
    url = new URL(resource.path.replace(/^\//, ''), base);
  } catch {
    throw new SyncFailedError(`${resource.name}: ${resource.path} under ${context.baseUrl} is not a URL`);
  }
  for (const [name, value] of Object.entries(resource.params ?? {})) url.searchParams.set(name, String(value));
  return { url, method: resource.method ?? 'GET', headers: { ...resource.headers }, body: resource.body };
}

/** Sends with the source's credentials; a 401 after which a fresh token could help is retried once. */
async function send(request: HttpRequest, context: ResourceContext): Promise<HttpResponse> {
  const attempt = async (): Promise<HttpResponse> => {
    const signed: HttpRequest = { ...request, url: new URL(request.url), headers: { ...request.headers } };
    await context.auth.apply(signed);
    return context.http.request(signed);
  };
  try {
    return await attempt();
  } catch (error) {
    if (error instanceof HttpStatusError && error.status === 401 && context.auth.refresh?.() === true) return attempt();
    throw error;
  }
}

function selectRecords(response: HttpResponse, resource: RestResource, request: HttpRequest): Record<string, unknown>[] {
  const where = `${request.method} ${describeUrl(request.url)}`;
  let found: unknown;
  if (typeof resource.dataSelector === 'function') {
    found = resource.dataSelector(response.body);
  } else if (resource.dataSelector !== undefined) {
    found = valueAt(response.body, resource.dataSelector);
    if (found === undefined) {
      throw new SyncFailedError(`${resource.name}: the response of ${where} has no ${resource.dataSelector}; the API's response shape has changed or data_selector is wrong`);
    }
  } else {
    found = findRecordList(response.body);
  }
  if (found === null) return [];
  const list = Array.isArray(found) ? found : [found];
  return list.map((item) => {
    if (item !== null && typeof item === 'object' && !Array.isArray(item)) return item as Record<string, unknown>;
    return { value: item };
  });
}

/** Without a data selector: the body itself when it is a list, else its one list of records. */
function findRecordList(body: unknown): unknown {
  if (Array.isArray(body) || body === null || typeof body !== 'object') return body;
  const record = body as Record<string, unknown>;
  for (const key of RECORD_LIST_KEYS) if (Array.isArray(record[key])) return record[key];
  const lists = Object.values(record).filter(Array.isArray);
  return lists.length === 1 ? lists[0] : body;
}

/** Where the last committed sync stopped (or the initial value); a full refresh starts over. */
function savedCursor(resource: RestResource, context: ResourceContext): string | number | undefined {
  const incremental = resource.incremental;
  if (incremental === undefined) return undefined;
  const saved = context.fullRefresh ? undefined : context.state.get(resource.name);
  return typeof saved === 'string' || typeof saved === 'number' ? saved : incremental.initialValue;
}

function applyCursor(request: HttpRequest, incremental: IncrementalSpec, since: string | number): void {
  const value = incremental.format === 'unix' ? toUnixSeconds(since) : since;
  if (incremental.apply !== undefined) incremental.apply(request, value);
  else if (incremental.param !== undefined) request.url.searchParams.set(incremental.param, String(value));
}

function toUnixSeconds(value: string | number): number {
  if (typeof value === 'number') return value;
  const time = Date.parse(value);
  return Number.isNaN(time) ? Number(value) : Math.floor(time / 1000);
}

/** A cursor moved back by the lookback window: dates and times by days, unix seconds by seconds. */
function minusDays(value: string | number, days: number): string | number {
  if (typeof value === 'number') return value - days * 86_400;
  const time = Date.parse(value);
  if (Number.isNaN(time)) return value;
  const earlier = new Date(time - days * 86_400_000).toISOString();
  return /^\d{4}-\d{2}-\d{2}$/.test(value) ? earlier.slice(0, 10) : earlier;
}

function highestCursor(current: string | number | undefined, records: readonly Record<string, unknown>[], cursorPath: string): string | number | undefined {
  let highest = current;
  for (const record of records) {
    const value = valueAt(record, cursorPath);
    if (typeof value !== 'string' && typeof value !== 'number') continue;
    if (highest === undefined || compareCursors(value, highest) > 0) highest = value;
  }
  return highest;
}

function compareCursors(a: string | number, b: string | number): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const timeA = Date.parse(String(a));
  const timeB = Date.parse(String(b));
  if (!Number.isNaN(timeA) && !Number.isNaN(timeB)) return timeA - timeB;
  return String(a).localeCompare(String(b));
}
