/** Every error a module means to tell a caller about: a status, a snake_case code and a message fit for a user. */
export abstract class QuarryError extends Error {
  abstract readonly status: number;
  abstract readonly code: string;
  /** Extra response headers, such as Retry-After for rate_limited and locked_out. */
  readonly headers: Record<string, string> = {};
}

export class InvalidRequestError extends QuarryError {
  readonly status = 400;
  readonly code: string = 'invalid_request';
}

export class UnauthenticatedError extends QuarryError {
  readonly status = 401;
  readonly code: string = 'unauthenticated';
  override readonly headers = { 'www-authenticate': 'Bearer' };
  constructor(message = 'Authentication required') {
    super(message);
  }
}

export class ForbiddenError extends QuarryError {
  readonly status = 403;
  readonly code: string = 'forbidden';
}

export class NotFoundError extends QuarryError {
  readonly status = 404;
  readonly code: string = 'not_found';
}

export class ConflictError extends QuarryError {
  readonly status = 409;
  readonly code: string = 'conflict';
}

export class TooManyRequestsError extends QuarryError {
  readonly status = 429;
  readonly code: string = 'rate_limited';
  override readonly headers: Record<string, string>;
  constructor(message: string, retryAfterSeconds: number) {
    super(message);
    this.headers = { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) };
  }
}

/** A problem in the project's configuration files; `problems` lists each with its location. */
export class ConfigError extends QuarryError {
  readonly status = 500;
  readonly code: string = 'config_invalid';
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
