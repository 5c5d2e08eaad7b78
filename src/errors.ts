import { ERROR_CODES, type ErrorCode, type ErrorCodeWithStatus } from './error-codes.ts';

export { ERROR_CODES, type ErrorCode, type ErrorCodeWithStatus } from './error-codes.ts';

/**
 * Every error a module means to tell a caller about: a code of ERROR_CODES and a message fit for a user. A class
 * names only its code; the status is the table's, so the two cannot disagree. The class of one status
 * (InvalidRequestError, NotFoundError, ...) takes only codes of that status, so `instanceof` still tells the status.
 */
export abstract class QuarryError extends Error {
  abstract readonly code: ErrorCode;
  /** Extra response headers, such as Retry-After for rate_limited and locked_out. */
  readonly headers: Record<string, string> = {};

  /** Read from the table at each use: a subclass sets its `code` only after this class's constructor has run. */
  get status(): number {
    return ERROR_CODES[this.code].status;
  }
}

export class InvalidRequestError extends QuarryError {
  readonly code: ErrorCodeWithStatus<400> = 'invalid_request';
}

export class UnauthenticatedError extends QuarryError {
  readonly code: ErrorCodeWithStatus<401> = 'unauthenticated';
  override readonly headers = { 'www-authenticate': 'Bearer' };
  constructor(message = 'Authentication required') {
    super(message);
  }
}

export class ForbiddenError extends QuarryError {
  readonly code: ErrorCodeWithStatus<403> = 'forbidden';
}

export class NotFoundError extends QuarryError {
  readonly code: ErrorCodeWithStatus<404> = 'not_found';
}

export class ConflictError extends QuarryError {
  readonly code: ErrorCodeWithStatus<409> = 'conflict';
}

export class TooManyRequestsError extends QuarryError {
  readonly code = 'rate_limited';
  override readonly headers: Record<string, string>;
  constructor(message: string, retryAfterSeconds: number) {
    super(message);
    this.headers = { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) };
  }
}

/** A problem in the project's configuration files; `problems` lists each with its location. */
export class ConfigError extends QuarryError {
  readonly code = 'config_invalid';
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(problems.join('\n'));
    this.problems = problems;
  }
}

/** Marks a failure that may succeed if tried again: HTTP 429 and 5xx, connection resets, a busy lock. */
export class TransientError extends Error {
  readonly retryAfterMs: number | undefined;
  constructor(message: string, options: { cause?: unknown; retryAfterMs?: number } = {}) {
    super(message, { cause: options.cause });
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** The message of anything thrown, for a log line or a one-line report. */
export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The first line of the message of anything thrown, for one-line reports: job history, events, warnings. */
export function firstLineOf(error: unknown): string {
  return describeError(error).split('\n')[0] ?? '';
}

/** `error` and the errors it was caused by (`cause`), outermost first; a cause met twice ends the chain. */
export function causeChain(error: unknown): Error[] {
  const chain: Error[] = [];
  for (let current: unknown = error; current instanceof Error && !chain.includes(current); current = current.cause) chain.push(current);
  return chain;
}
