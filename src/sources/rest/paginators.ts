import { SyncFailedError } from '../sync-failed-error.ts';
import type { HttpRequest, HttpResponse } from './http-client.ts';
import { valueAt } from './json-path.ts';

/** Decides the request for the next page from the last one, its response and the records it held. */
export interface Paginator {
  next(request: HttpRequest, response: HttpResponse, records: readonly unknown[]): HttpRequest | undefined;
  /**
   * The request `distance` pages after `request`, guessed from its response before the pages between were read,
   * so that they can be fetched ahead; undefined when the response shows there is no such page. Only paginators
   * whose next page does not depend on what the previous one said (page numbers, offsets) have it: a guess is
   * used only when `next` later asks for the same request.
   */
  ahead?(request: HttpRequest, response: HttpResponse, records: readonly unknown[], distance: number): HttpRequest | undefined;
}

/** A paginator by name, with options, as sources.yml and connector definitions give it. */
export type PaginatorSpec =
  | { type: 'auto' }
  | { type: 'single_page' }
  | { type: 'header_link' }
  | { type: 'json_link'; next_url_path: string }
  | { type: 'cursor'; cursor_path: string; cursor_param: string }
  | { type: 'offset'; limit: number; offset_param?: string; limit_param?: string; total_path?: string }
  | { type: 'page_number'; page_param?: string; base_page?: number; total_path?: string };

/** The same request with one query parameter set. */
export function withParam(request: HttpRequest, name: string, value: string | number): HttpRequest {
  const url = new URL(request.url);
  url.searchParams.set(name, String(value));
  return { ...request, url, headers: { ...request.headers } };
}

function withUrl(request: HttpRequest, next: string): HttpRequest {
  return { ...request, url: new URL(next, request.url), headers: { ...request.headers } };
}

export const singlePage: Paginator = { next: () => undefined };

/** RFC 8288 `Link: <...>; rel="next"`, as code hosts and storefront APIs page. */
export const headerLink: Paginator = {
  next(request, response) {
    const next = nextLink(response.headers.get('link'));
    return next === undefined ? undefined : withUrl(request, next);
  },
};

export function nextLink(header: string | null): string | undefined {
  if (header === null) return undefined;
  for (const part of header.split(/,(?=\s*<)/)) {
    const match = /<([^>]*)>\s*;(.*)$/.exec(part.trim());
    if (match?.[1] !== undefined && /\brel\s*=\s*"?([^";]*\s)?next(\s[^";]*)?"?/i.test(match[2] ?? '')) return match[1];
  }
  return undefined;
}

export function jsonLink(nextUrlPath: string): Paginator {
  return {
    next(request, response) {
      const next = valueAt(response.body, nextUrlPath);
      return typeof next === 'string' && next !== '' ? withUrl(request, next) : undefined;
    },
  };
}

export function cursorParam(cursorPath: string, param: string): Paginator {
  return {
    next(request, response) {
      const cursor = valueAt(response.body, cursorPath);
      return (typeof cursor === 'string' && cursor !== '') || typeof cursor === 'number' ? withParam(request, param, cursor) : undefined;
    },
  };
}

export function offsetParam(options: { limit: number; offset_param?: string; limit_param?: string; total_path?: string }): Paginator {
  const offsetName = options.offset_param ?? 'offset';
  const limitName = options.limit_param ?? 'limit';
  // Each page is guessed to hold as many records as this one did (an API may cap the limit it was asked for).
  const ahead = (request: HttpRequest, response: HttpResponse, records: readonly unknown[], distance: number): HttpRequest | undefined => {
    const offset = Number(request.url.searchParams.get(offsetName) ?? 0) + records.length * distance;
    const total = options.total_path === undefined ? undefined : Number(valueAt(response.body, options.total_path));
    if (records.length === 0 || (total !== undefined && Number.isFinite(total) ? offset >= total : records.length < options.limit)) return undefined;
    return withParam(withParam(request, limitName, options.limit), offsetName, offset);
  };
  return { next: (request, response, records) => ahead(request, response, records, 1), ahead };
}

export function pageNumber(options: { page_param?: string; base_page?: number; total_path?: string }): Paginator {
  const param = options.page_param ?? 'page';
  const base = options.base_page ?? 1;
  const ahead = (request: HttpRequest, response: HttpResponse, records: readonly unknown[], distance: number): HttpRequest | undefined => {
    const page = Number(request.url.searchParams.get(param) ?? base);
    const totalPages = options.total_path === undefined ? undefined : Number(valueAt(response.body, options.total_path));
    if (records.length === 0 || (totalPages !== undefined && Number.isFinite(totalPages) && page + distance - base >= totalPages)) return undefined;
    return withParam(request, param, page + distance);
  };
  return { next: (request, response, records) => ahead(request, response, records, 1), ahead };
}

const NEXT_URL_PATHS = ['next', 'next_url', 'nextUrl', 'links.next', 'links.next.href', '_links.next.href', 'paging.next', 'pagination.next', 'meta.next'];
const NEXT_CURSOR_PATHS: readonly [string, string][] = [
  ['next_cursor', 'cursor'], ['nextCursor', 'cursor'], ['response_metadata.next_cursor', 'cursor'], ['meta.next_cursor', 'cursor'],
  ['paging.next.after', 'after'], ['next_page_token', 'page_token'], ['nextPageToken', 'pageToken'],
];

/**
 * Picks the paginator from the first response, as most APIs show their scheme: a Link header, a next
 * URL in the body, or a next cursor in the body; otherwise the response is the only page.
 */
export function autoPaginator(): Paginator {
  let chosen: Paginator | undefined;
  return {
    next(request, response, records) {
      chosen ??= detect(response);
      return chosen.next(request, response, records);
    },
  };
}

function detect(response: HttpResponse): Paginator {
  if (nextLink(response.headers.get('link')) !== undefined) return headerLink;
  for (const path of NEXT_URL_PATHS) {
    const value = valueAt(response.body, path);
    if (typeof value === 'string' && /^(https?:\/\/|\/|\?)/.test(value)) return jsonLink(path);
  }
  for (const [path, param] of NEXT_CURSOR_PATHS) {
    const value = valueAt(response.body, path);
    if (typeof value === 'string' && value !== '') return cursorParam(path, param);
  }
  return singlePage;
}

export function paginatorFrom(spec: PaginatorSpec | undefined): Paginator {
  switch (spec?.type) {
    case undefined:
    case 'auto': return autoPaginator();
    case 'single_page': return singlePage;
    case 'header_link': return headerLink;
    case 'json_link': return jsonLink(spec.next_url_path);
    case 'cursor': return cursorParam(spec.cursor_path, spec.cursor_param);
    case 'offset': return offsetParam(spec);
    case 'page_number': return pageNumber(spec);
  }
}

/** A paginator given in sources.yml: a name, or a mapping with `type` and that paginator's options. */
export function parsePaginatorSpec(value: unknown, where: string): PaginatorSpec {
  const spec = (typeof value === 'string' ? { type: value } : value) as Record<string, unknown>;
  const text = (key: string): string | undefined => (typeof spec[key] === 'string' ? spec[key] : undefined);
  const number = (key: string): number | undefined => (typeof spec[key] === 'number' ? spec[key] : undefined);
  const required = (key: string): string => {
    const found = text(key);
    if (found === undefined) throw new SyncFailedError(`${where}: the ${String(spec.type)} paginator needs ${key}`);
    return found;
  };
  switch (spec.type) {
    case 'auto': case 'single_page': case 'header_link': return { type: spec.type };
    case 'json_link': return { type: 'json_link', next_url_path: text('next_url_path') ?? 'next' };
    case 'cursor': return { type: 'cursor', cursor_path: required('cursor_path'), cursor_param: text('cursor_param') ?? 'cursor' };
    case 'offset': return { type: 'offset', limit: number('limit') ?? 100, offset_param: text('offset_param'), limit_param: text('limit_param'), total_path: text('total_path') };
    case 'page_number': return { type: 'page_number', page_param: text('page_param'), base_page: number('base_page'), total_path: text('total_path') };
    default: throw new SyncFailedError(`${where}: unknown paginator ${JSON.stringify(spec.type)}; use auto, single_page, header_link, json_link, cursor, offset or page_number`);
  }
}
