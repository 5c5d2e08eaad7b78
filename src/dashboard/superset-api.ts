/** A string in Rison, the notation of Superset's `?q=` list queries. */
export function risonString(value: string): string {
  return `'${value.replaceAll('!', '!!').replaceAll("'", "!'")}'`;
}

export class SupersetApiError extends Error {
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.name = 'SupersetApiError';
    this.status = status;
  }
}

export interface ListFilter { readonly col: string; readonly opr: string; readonly value: string | number }

const PAGE_SIZE = 100;

/** Superset's REST API as Quarry's service account (a bearer JWT: no CSRF token needed). */
export class SupersetApi {
  readonly #origin: () => string | undefined;
  readonly #password: () => string;
  readonly #username: string;
  #token: string | undefined;
  /** The CSRF token and the session cookie it belongs to. */
  #csrf: Record<string, string> | undefined;

  constructor(options: { origin: () => string | undefined; username: string; password: () => string }) {
    this.#origin = options.origin;
    this.#username = options.username;
    this.#password = options.password;
  }

  /**
   * Sends one request; a refused token (Superset restarted with a new key, expiry) or CSRF token
   * (its session ended) is renewed once.
   */
  async request<T>(method: string, apiPath: string, body?: unknown): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const token = this.#token ?? await this.#login();
      const headers: Record<string, string> = { authorization: `Bearer ${token}` };
      if (body !== undefined) headers['content-type'] = 'application/json';
      // Superset's own endpoints (FAB's security API aside) check CSRF even for bearer tokens.
      if (method !== 'GET' && method !== 'HEAD') Object.assign(headers, this.#csrf ?? await this.#fetchCsrf(token));
      const response = await fetch(this.#url(apiPath), {
        method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(30_000),
      });
      if (response.ok) return await response.json() as T;
      const problem = await problemOf(response);
      if (attempt === 1 && (response.status === 401 || /CSRF/i.test(problem))) {
        this.#token = undefined;
        this.#csrf = undefined;
        continue;
      }
      throw new SupersetApiError(response.status, `Superset answered ${String(response.status)} to ${method} ${apiPath}${problem === '' ? '' : `: ${problem}`}`);
    }
  }

  /** Every row of a list endpoint, page by page, optionally filtered on one column. */
  async list<T>(listPath: string, filter?: ListFilter): Promise<T[]> {
    const rows: T[] = [];
    for (let page = 0; ; page++) {
      const filters = filter === undefined ? ''
        : `filters:!((col:${filter.col},opr:${filter.opr},value:${typeof filter.value === 'number' ? String(filter.value) : risonString(filter.value)})),`;
      const query = `(${filters}page:${String(page)},page_size:${String(PAGE_SIZE)})`;
      const { result } = await this.request<{ result: T[] }>('GET', `${listPath}?q=${encodeURIComponent(query)}`);
      rows.push(...result);
      if (result.length < PAGE_SIZE) return rows;
    }
  }

  async #login(): Promise<string> {
    const response = await fetch(this.#url('/api/v1/security/login'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: this.#username, password: this.#password(), provider: 'db', refresh: false }),
      signal: AbortSignal.timeout(30_000),
    });
    if (!response.ok) throw new Error(`Superset refused the service account's login (${String(response.status)})`);
    const { access_token: token } = await response.json() as { access_token: string };
    this.#token = token;
    return token;
  }

  async #fetchCsrf(token: string): Promise<Record<string, string>> {
    const response = await fetch(this.#url('/api/v1/security/csrf_token/'), { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(30_000) });
    if (!response.ok) throw new Error(`Superset refused a CSRF token (${String(response.status)})`);
    const { result } = await response.json() as { result: string };
    const cookie = response.headers.getSetCookie().map((value) => value.split(';')[0]).join('; ');
    this.#csrf = { 'x-csrftoken': result, cookie };
    return this.#csrf;
  }

  #url(apiPath: string): string {
    const origin = this.#origin();
    if (origin === undefined) throw new Error('Superset is not running');
    return `${origin}/dashboard${apiPath}`;
  }
}

/**
 * Superset's error message, never more: a body may echo what was sent (a user PUT echoes its
 * password), so only the `message` fields are kept.
 */
async function problemOf(response: Response): Promise<string> {
  try {
    const body = await response.json() as { message?: unknown; errors?: { message?: unknown }[] };
    const message = body.message ?? body.errors?.[0]?.message;
    return (typeof message === 'string' ? message : JSON.stringify(message ?? '')).slice(0, 300).replace(/^""$/, '');
  } catch {
    return '';
  }
}
