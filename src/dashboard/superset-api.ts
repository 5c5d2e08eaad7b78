/** Superset's REST API as Quarry's service account (a bearer JWT: no CSRF token needed). */
export class SupersetApi {
  readonly #origin: () => string | undefined;
  readonly #password: () => string;
  readonly #username: string;
  #token: string | undefined;

  constructor(options: { origin: () => string | undefined; username: string; password: () => string }) {
    this.#origin = options.origin;
    this.#username = options.username;
    this.#password = options.password;
  }

  /** Sends one request; a refused token (Superset restarted with a new key, expiry) is renewed once. */
  async request<T>(method: string, apiPath: string, body?: unknown): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const token = this.#token ?? await this.#login();
      const response = await fetch(this.#url(apiPath), {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });
      if (response.status === 401 && attempt === 1) {
        this.#token = undefined;
        await response.body?.cancel();
        continue;
      }
      // Never the body in the message: a user PUT echoes the submitted password.
      if (!response.ok) throw new Error(`Superset answered ${String(response.status)} to ${method} ${apiPath}`);
      return await response.json() as T;
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

  #url(apiPath: string): string {
    const origin = this.#origin();
    if (origin === undefined) throw new Error('Superset is not running');
    return `${origin}/dashboard${apiPath}`;
  }
}
