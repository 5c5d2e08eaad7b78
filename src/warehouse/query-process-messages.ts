import type { Json } from '@duckdb/node-api';
import type { ErrorCode } from '../errors.ts';
import type { LakeLocation } from './lake-location.ts';
import type { QueryColumn } from './read-query.ts';

/** What the service sends the query process (query-process.ts to query-process-child.ts). */
export type ToQueryProcess =
  /** The first message: the lake to read, as its readers log in to it. */
  | { readonly kind: 'open'; readonly lake: LakeLocation }
  | { readonly kind: 'query'; readonly id: number; readonly sql: string; readonly maxRows: number; readonly maxCharacters: number | undefined; readonly timeoutMs: number }
  /** A part that was not the last was taken (a slow download holds the query back, not the service's memory). */
  | { readonly kind: 'next'; readonly id: number }
  | { readonly kind: 'cancel'; readonly id: number };

/**
 * What the query process answers, each message about one query: its rows in parts, the first with the columns, the
 * last saying so (a small answer is one part), or its failure.
 */
export type FromQueryProcess =
  /** The process has the query (a query it took is not sent again should the process end). */
  | { readonly kind: 'accepted'; readonly id: number }
  /** The query's time is up: whoever reads its rows stops waiting on anything else. */
  | { readonly kind: 'timeUp'; readonly id: number }
  | {
    readonly kind: 'part'; readonly id: number; readonly columns?: readonly QueryColumn[] | undefined; readonly rows: Json[][];
    /** On the last part: whether rows past the cap were left unread. */
    readonly end?: { readonly truncated: boolean } | undefined;
  }
  | {
    readonly kind: 'failed'; readonly id: number; readonly code: ErrorCode; readonly message: string; readonly columns?: readonly QueryColumn[] | undefined;
    /** Put by the service itself: the process ended before it answered. */
    readonly processEnded?: true;
  };
