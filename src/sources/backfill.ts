import { InvalidRequestError } from '../errors.ts';
import type { SourceConfig, SourceTypeKey } from './config/index.ts';
import type { DateWindow } from './date-window.ts';

/**
 * The types whose connector can be asked for a window of dates (spec 2.8's date-range filtering, and
 * `rest_api` through an endpoint's incremental cursor): the window replaces the start and end the
 * connector would otherwise compute from its section and saved cursors.
 */
export const BACKFILL_TYPES = [
  'payments', 'storefront', 'web_analytics', 'search_ads', 'helpdesk_a', 'recruiting', 'team_chat', 'video_analytics', 'rest_api',
] as const satisfies readonly SourceTypeKey[];

export class BackfillNotSupportedError extends InvalidRequestError {
  override readonly code = 'backfill_not_supported';
}

const CALENDAR_DATE = /^\d{4}-\d{2}-\d{2}$/;

function isCalendarDate(text: string): boolean {
  return CALENDAR_DATE.test(text) && new Date(`${text}T00:00:00Z`).toISOString().startsWith(text);
}

/**
 * The window a backfill of `source` re-loads: `since` to `until` (default today, UTC). Throws
 * BackfillNotSupportedError for a type without date ranges, InvalidRequestError for dates out of order,
 * in the future, or beside a full refresh.
 */
export function backfillWindow(
  source: SourceConfig, request: { readonly since: string; readonly until?: string | undefined }, options: { readonly now: Date; readonly fullRefresh: boolean },
): DateWindow {
  const supported = (BACKFILL_TYPES as readonly string[]).includes(source.type);
  if (!supported) {
    throw new BackfillNotSupportedError(
      `The source "${source.name}" has type ${source.type}, which cannot re-load a window of dates; backfill works for ${BACKFILL_TYPES.join(', ')}`,
    );
  }
  if (source.type === 'rest_api') assertRestApiBackfillable(source);
  const today = options.now.toISOString().slice(0, 10);
  const until = request.until ?? today;
  for (const [field, value] of [['since', request.since], ['until', until]] as const) {
    if (!isCalendarDate(value)) throw new InvalidRequestError(`${field} must be a date YYYY-MM-DD, got "${value}"`);
  }
  if (request.since > until) throw new InvalidRequestError(`since (${request.since}) is after until (${until})`);
  if (until > today) throw new InvalidRequestError(`until (${until}) is in the future; the last day a backfill can re-load is today, ${today}`);
  if (options.fullRefresh) throw new InvalidRequestError('A backfill re-loads a window and keeps the rest; it cannot be a full refresh too');
  return { since: request.since, until };
}

/** A `rest_api` window is read through an endpoint's cursor and merged on its key: an endpoint needs both. */
function assertRestApiBackfillable(source: Extract<SourceConfig, { type: 'rest_api' }>): void {
  const incremental = source.rest_api.endpoints.filter((endpoint) => endpoint.incremental !== undefined);
  if (incremental.length === 0) {
    throw new BackfillNotSupportedError(
      `The source "${source.name}" has no endpoint with an incremental cursor, so it cannot re-load a window of dates; `
      + 'add incremental: {cursor_path, param} and a primary_key to an endpoint',
    );
  }
  const unkeyed = incremental.filter((endpoint) => endpoint.primary_key === undefined);
  if (unkeyed.length > 0) {
    throw new BackfillNotSupportedError(
      `The source "${source.name}" has an incremental endpoint without a primary_key (${unkeyed.map((endpoint) => endpoint.path).join(', ')}); `
      + 'a re-loaded window is merged on the key, so add one to backfill',
    );
  }
}
