import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { causeChain, TransientError } from '../../errors.ts';
import { SyncFailedError } from '../sync-failed-error.ts';
import { OutboundRefusedError, type OutboundPolicy } from '../outbound/index.ts';

export interface HttpRequest {
  url: URL;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  /** A JSON body, for APIs that take their query in POST requests, or a string sent as it is (a form). */
  body?: unknown;
}

export interface HttpResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: unknown;
  readonly url: URL;
}

export interface HttpClientOptions {
  readonly signal: AbortSignal;
  /** Every connection, redirects' included, goes through its dispatcher. */
  readonly outbound: OutboundPolicy;
  readonly timeoutMs?: number;
  readonly maxAttempts?: number;
  readonly baseDelayMs?: number;
  readonly maxDelayMs?: number;
  readonly onRetry?: (message: string) => void;
}

const RETRIED_STATUSES = new Set([408, 429, 500, 502, 503, 504]);
const MAX_REDIRECTS = 5;
/** One page of records; a larger answer is a misbehaving endpoint, not data. */
const MAX_BODY_BYTES = 256 * 1024 * 1024;
const TRANSIENT_NETWORK_ERRORS = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT']);

/** Where a request went, for messages: never the query string, which may carry a key. */
export function describeUrl(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

/** An HTTP status the caller may act on (a 401 that a token refresh may cure). */
export class HttpStatusError extends SyncFailedError {
  readonly status: number;
  constructor(request: HttpRequest, status: number, statusText: string, detail: string) {
    super(`${request.method} ${describeUrl(request.url)} answered ${String(status)} ${statusText}${detail === '' ? '' : `: ${detail}`}`, {
      transient: RETRIED_STATUSES.has(status),
    });
    this.status = status;
  }
}

/**
 * JSON over HTTP for connectors: a timeout per request, and retries with exponential backoff and full
 * jitter on 408/429/5xx and dropped connections, honouring Retry-After; anything else fails at once
 * with a one-line cause.
 */
export class HttpClient {
  readonly #options: Required<Omit<HttpClientOptions, 'onRetry' | 'outbound'>> & Pick<HttpClientOptions, 'onRetry' | 'outbound'>;
  /** Until when the API asked (by Retry-After) to hear nothing: every request of this client waits, not only the refused one. */
  #quietUntil = 0;

  constructor(options: HttpClientOptions) {
    this.#options = { timeoutMs: 30_000, maxAttempts: 6, baseDelayMs: 500, maxDelayMs: 60_000, ...options };
  }

  async request(request: HttpRequest): Promise<HttpResponse> {
    return this.#exchange(request, (response) => readResponse(request, response));
  }

  /** Streams a successful answer's body into `file` (a CSV export, say), with the same timeout and retries as `request`. */
  async download(request: HttpRequest, file: string): Promise<void> {
    await this.#exchange(request, async (response) => {
      if (!response.ok || response.body === null) await readResponse(request, response);
      else await pipeline(Readable.fromWeb(response.body), createWriteStream(file), { signal: this.#options.signal });
    });
  }

  async #exchange<T>(request: HttpRequest, read: (response: Response) => Promise<T>): Promise<T> {
    const { maxAttempts, signal } = this.#options;
    for (let attempt = 1; ; attempt += 1) {
      signal.throwIfAborted();
      const quietMs = this.#quietUntil - Date.now();
      if (quietMs > 0) await sleep(quietMs, undefined, { signal });
      try {
        return await this.#attempt(request, read, attempt < maxAttempts);
      } catch (error) {
        if (!(error instanceof TransientError) || signal.aborted) throw error;
        if (attempt >= maxAttempts) throw new SyncFailedError(error.message, { transient: true });
        if (error.retryAfterMs !== undefined) {
          this.#quietUntil = Math.max(this.#quietUntil, Date.now() + Math.min(error.retryAfterMs, this.#options.maxDelayMs));
        }
        await this.#wait(attempt, error.retryAfterMs, error.message);
      }
    }
  }

  /**
   * One try: a TransientError for what may succeed if tried again (408/429/5xx while `mayRetry`, a timeout,
   * a dropped connection), a SyncFailedError for anything else.
   */
  async #attempt<T>(request: HttpRequest, read: (response: Response) => Promise<T>, mayRetry: boolean): Promise<T> {
    try {
      const response = await this.#send(request);
      if (RETRIED_STATUSES.has(response.status) && mayRetry) {
        await response.body?.cancel();
        throw new TransientError(`${request.method} ${describeUrl(request.url)} answered ${String(response.status)}`, {
          retryAfterMs: parseRetryAfter(response.headers.get('retry-after')),
        });
      }
      // Read inside the try: a body that stalls past the timeout is retried like a request that does.
      return await read(response);
    } catch (error) {
      if (error instanceof SyncFailedError || error instanceof TransientError || this.#options.signal.aborted) throw error;
      const refusal = refusalOf(error);
      if (refusal !== undefined) throw refusal;
      const cause = networkCause(error, request, this.#options.timeoutMs);
      throw cause.transient ? new TransientError(cause.message, { cause: error }) : new SyncFailedError(cause.message);
    }
  }

  /**
   * Sends one request, following redirects only within its origin: credentials (an Authorization or key
   * header, a key in the query) must never travel to another host, nor from https to http.
   */
  async #send(request: HttpRequest): Promise<Response> {
    const signal = AbortSignal.any([this.#options.signal, AbortSignal.timeout(this.#options.timeoutMs)]);
    let current = request;
    for (let redirects = 0; ; redirects += 1) {
      const response = await fetch(current.url, {
        ...encodeBody(current), method: current.method, redirect: 'manual', signal, dispatcher: this.#options.outbound.dispatcher,
      });
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || location === null) return response;
      await response.body?.cancel();
      const target = new URL(location, current.url);
      if (target.origin !== current.url.origin) {
        throw new SyncFailedError(`${current.method} ${describeUrl(current.url)} redirected to ${target.origin}; Quarry does not send the source's credentials to another host (point base_url at it if the API moved)`);
      }
      if (redirects >= MAX_REDIRECTS) throw new SyncFailedError(`${current.method} ${describeUrl(current.url)} redirected more than ${String(MAX_REDIRECTS)} times`);
      const becomesGet = response.status === 303 || ((response.status === 301 || response.status === 302) && current.method === 'POST');
      current = becomesGet ? { ...current, url: target, method: 'GET', body: undefined } : { ...current, url: target };
    }
  }

  async #wait(attempt: number, retryAfterMs: number | undefined, reason: string): Promise<void> {
    const { baseDelayMs, maxDelayMs } = this.#options;
    const delayMs = retryAfterMs ?? Math.random() * Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
    const capped = Math.min(delayMs, maxDelayMs);
    this.#options.onRetry?.(`${reason}; retrying in ${(capped / 1000).toFixed(1)} s (attempt ${String(attempt + 1)} of ${String(this.#options.maxAttempts)})`);
    await sleep(capped, undefined, { signal: this.#options.signal });
  }
}

/** Retry-After is either seconds or an HTTP date. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (value === null || value === undefined || value.trim() === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value.trim()) * 1000; // seconds; Shopify writes "2.0"
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function encodeBody(request: HttpRequest): { headers: Record<string, string>; body: string | undefined } {
  const headers: Record<string, string> = { accept: 'application/json', ...request.headers };
  if (typeof request.body === 'string') return { headers, body: request.body };
  if (request.body === undefined) return { headers, body: undefined };
  headers['content-type'] ??= 'application/json';
  return { headers, body: JSON.stringify(request.body) };
}

/** The body as text, refusing one past MAX_BODY_BYTES instead of holding it all in memory. */
async function readText(request: HttpRequest, response: Response): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? 0);
  const tooLarge = (): SyncFailedError =>
    new SyncFailedError(`${request.method} ${describeUrl(request.url)} answered more than ${String(MAX_BODY_BYTES / 1024 / 1024)} MB in one response`);
  if (declared > MAX_BODY_BYTES) {
    await response.body?.cancel();
    throw tooLarge();
  }
  if (response.body === null) return '';
  // Kept as bytes and decoded once: decoding chunk by chunk into a growing string costs more than the parse.
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    bytes += chunk.byteLength;
    if (bytes > MAX_BODY_BYTES) throw tooLarge();
    chunks.push(chunk);
  }
  return new TextDecoder().decode(Buffer.concat(chunks, bytes));
}

async function readResponse(request: HttpRequest, response: Response): Promise<HttpResponse> {
  const text = await readText(request, response);
  if (!response.ok) {
    throw new HttpStatusError(request, response.status, response.statusText, vendorMessage(text));
  }
  const type = response.headers.get('content-type') ?? '';
  let body: unknown;
  try {
    body = text === '' ? null : JSON.parse(text);
  } catch {
    throw new SyncFailedError(`${request.method} ${describeUrl(request.url)} answered ${type === '' ? 'something' : type} that is not JSON`);
  }
  return { status: response.status, headers: response.headers, body, url: new URL(response.url === '' ? request.url : response.url) };
}

/** A vendor's own error text, when its body has one, cut short: enough to name the problem. */
function vendorMessage(text: string): string {
  let message: unknown = text;
  try {
    const parsed: unknown = JSON.parse(text);
    message = findMessage(parsed) ?? text;
  } catch {
    // not JSON: the text itself
  }
  return String(message).replace(/\s+/g, ' ').trim().slice(0, 200);
}

function findMessage(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value === null || typeof value !== 'object') return undefined;
  const record = value as Record<string, unknown>;
  for (const key of ['message', 'error_description', 'error', 'detail', 'errors', 'description']) {
    const found = findMessage(record[key]);
    if (found !== undefined) return found;
  }
  return Array.isArray(value) ? findMessage(value[0]) : undefined;
}

function networkCause(error: unknown, request: HttpRequest, timeoutMs: number): { message: string; transient: boolean } {
  const host = request.url.host;
  if (error instanceof DOMException && error.name === 'TimeoutError') {
    return { message: `No answer from ${host} within ${String(timeoutMs / 1000)} s`, transient: true };
  }
  const code = errorCode(error);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return { message: `Could not resolve the host name ${request.url.hostname} (DNS lookup failed)`, transient: code === 'EAI_AGAIN' };
  }
  if (code === 'ECONNREFUSED') return { message: `Could not connect to ${host}: connection refused`, transient: true };
  if (code !== undefined && TRANSIENT_NETWORK_ERRORS.has(code)) return { message: `The connection to ${host} failed (${code})`, transient: true };
  if (code !== undefined && /CERT|SSL|TLS/.test(code)) return { message: `The TLS connection to ${host} failed (${code})`, transient: false };
  return { message: `The request to ${describeUrl(request.url)} failed${code === undefined ? '' : ` (${code})`}`, transient: true };
}

/** fetch fails with "fetch failed"; the dispatcher's refusal is its cause. */
function refusalOf(error: unknown): OutboundRefusedError | undefined {
  return causeChain(error).find((cause) => cause instanceof OutboundRefusedError);
}

function errorCode(error: unknown): string | undefined {
  return causeChain(error).map((cause) => (cause as { code?: unknown }).code).find((code) => typeof code === 'string');
}
