import { randomBytes } from 'node:crypto';
import { encryptSecret } from '../auth/index.ts';
import type { Logger } from '../logger.ts';
import type { DashboardAccount, Role, Store, UserRecord } from '../store/index.ts';
import { SupersetApiError, type SupersetApi } from './superset-api.ts';
import type { SupersetProcess } from './superset-process.ts';
import { VIEWER_ROLE } from './warehouse-registration.ts';

/** Quarry role → Superset roles (the viewer role holds read access to the warehouse database). */
const SUPERSET_ROLES: Record<Role, readonly string[]> = {
  admin: ['Admin'],
  editor: ['Alpha', 'sql_lab'],
  viewer: ['Gamma', VIEWER_ROLE],
};

/** Superset's session cookie (SESSION_COOKIE_NAME in superset_config.py). */
export const SESSION_COOKIE = 'dashboard.SESSION';

function sessionCookieValue(headers: Headers): string | undefined {
  const cookie = headers.getSetCookie().find((value) => value.startsWith(`${SESSION_COOKIE}=`));
  return cookie?.slice(SESSION_COOKIE.length + 1).split(';')[0];
}


/**
 * The single sign-on bridge: keeps one Superset account per platform user (role mapped, disabled
 * with the user) and tells the proxy which identity headers a request carries.
 */
export class DashboardBridge {
  readonly #superset: SupersetProcess;
  readonly #store: Store;
  readonly #secretKey: Buffer;
  readonly #log: Logger;
  readonly #now: () => Date;
  readonly #api: SupersetApi;
  #roleIds: Map<string, number> | undefined;
  /** Users whose account was synced since Superset last started. */
  readonly #inStep = new Set<number>();
  /** One sync at a time, so two requests never create the same account twice. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: { superset: SupersetProcess; api: SupersetApi; store: Store; secretKey: Buffer; log: Logger; now: () => Date }) {
    this.#superset = options.superset;
    this.#api = options.api;
    this.#store = options.store;
    this.#secretKey = options.secretKey;
    this.#log = options.log;
    this.#now = options.now;
  }

  /** Superset's name for a platform user: the email, which is unique on both sides. */
  static usernameOf(user: Pick<UserRecord, 'email'>): string {
    return user.email;
  }

  /** The headers that make Superset see `user`; the secret proves they come from this proxy. */
  identityHeaders(user: Pick<UserRecord, 'email'>): Record<string, string> {
    return { 'x-quarry-user': DashboardBridge.usernameOf(user), 'x-quarry-proxy-secret': this.#superset.proxySecret };
  }

  account(userId: number): DashboardAccount | undefined {
    return this.#store.dashboardAccounts.get(userId);
  }

  /**
   * Opens a Superset session for the user and returns its `dashboard.SESSION` value for the browser;
   * undefined when Superset is down (the proxy then opens it at the first /dashboard/ request).
   */
  async openSession(user: UserRecord): Promise<string | undefined> {
    const origin = this.#superset.origin();
    if (origin === undefined) return undefined;
    await this.ensureAccount(user);
    const response = await fetch(`${origin}/dashboard/login/`, {
      headers: this.identityHeaders(user), redirect: 'manual', signal: AbortSignal.timeout(10_000),
    });
    await response.body?.cancel();
    return sessionCookieValue(response.headers);
  }

  /** Ends the Superset session behind a `dashboard.SESSION` value (a request without identity headers logs it out). */
  async closeSession(cookieValue: string): Promise<void> {
    const origin = this.#superset.origin();
    if (origin === undefined) return;
    const response = await fetch(`${origin}/dashboard/logout/`, {
      headers: { cookie: `${SESSION_COOKIE}=${cookieValue}` }, redirect: 'manual', signal: AbortSignal.timeout(10_000),
    });
    await response.body?.cancel();
  }

  /** Creates or updates every user's account and disables those of deleted users. */
  /** Superset (re)started: its metadata DB, and with it the role ids and users, may be new. */
  supersetRestarted(): void {
    this.#roleIds = undefined;
    this.#inStep.clear();
  }

  async syncAll(): Promise<void> {
    for (const user of this.#store.users.list()) await this.syncUser(user);
    const known = new Set(this.#store.users.list().map((user) => user.id));
    for (const account of this.#store.dashboardAccounts.list()) {
      if (!known.has(account.userId) && account.active) await this.#serialised(() => this.#disable(account));
    }
  }

  /** Brings the user's account in line with the user (created on first sight). */
  async syncUser(user: UserRecord): Promise<DashboardAccount> {
    return this.#serialised(() => this.#sync(user));
  }

  /** Syncs the user unless the recorded account already matches: the proxy's lazy path (users added or changed while Superset was down, or by the CLI). */
  async ensureAccount(user: UserRecord): Promise<void> {
    const account = this.account(user.id);
    const matches = account?.active === user.active && account.role === user.role && account.username === DashboardBridge.usernameOf(user);
    if (matches && this.#inStep.has(user.id)) return;
    await this.syncUser(user);
  }

  /** Disables the account of a deleted user. */
  async removeUser(userId: number): Promise<void> {
    const account = this.account(userId);
    if (account?.active === true) await this.#serialised(() => this.#disable(account));
  }

  async #sync(user: UserRecord): Promise<DashboardAccount> {
    const roleIds = await this.#roles(SUPERSET_ROLES[user.role]);
    const username = DashboardBridge.usernameOf(user);
    const existing = this.account(user.id);
    let supersetUserId = await this.#knownUser(existing) ?? await this.#findUser(username);
    const [firstName, ...rest] = (user.name.trim() || username).split(/\s+/);
    const fields = { first_name: firstName ?? username, last_name: rest.join(' ') || '-', username, email: user.email, active: user.active, roles: roleIds };
    let passwordEncrypted = existing?.passwordEncrypted;
    if (supersetUserId === undefined) {
      // Never used to log in (the proxy's header is the login) but required by Superset; stored sealed, never shown.
      const password = randomBytes(24).toString('base64url');
      const created = await this.#api.request<{ id: number }>('POST', '/api/v1/security/users/', { ...fields, password });
      supersetUserId = created.id;
      passwordEncrypted = encryptSecret(password, this.#secretKey);
    } else {
      await this.#api.request('PUT', `/api/v1/security/users/${String(supersetUserId)}`, fields);
    }
    passwordEncrypted ??= encryptSecret(randomBytes(24).toString('base64url'), this.#secretKey);
    const account = { userId: user.id, username, supersetUserId, passwordEncrypted, active: user.active, role: user.role, syncedAt: this.#now().toISOString() };
    this.#store.dashboardAccounts.save(account);
    this.#inStep.add(user.id);
    this.#log.info({ userId: user.id, role: user.role, active: user.active }, 'dashboard account synced');
    return account;
  }

  async #disable(account: DashboardAccount): Promise<void> {
    try {
      await this.#api.request('PUT', `/api/v1/security/users/${String(account.supersetUserId)}`, { active: false });
    } catch (error) {
      // A Superset user that no longer exists cannot sign in either.
      if (!(error instanceof SupersetApiError && error.status === 404)) throw error;
    }
    this.#store.dashboardAccounts.save({ ...account, active: false, syncedAt: this.#now().toISOString() });
  }


  /** The recorded Superset user id, if Superset still has it (its metadata DB may have been rebuilt since). */
  async #knownUser(account: DashboardAccount | undefined): Promise<number | undefined> {
    if (account === undefined) return undefined;
    try {
      await this.#api.request('GET', `/api/v1/security/users/${String(account.supersetUserId)}`);
      return account.supersetUserId;
    } catch (error) {
      if (error instanceof SupersetApiError && error.status === 404) return undefined;
      throw error;
    }
  }

  async #findUser(username: string): Promise<number | undefined> {
    const found = await this.#api.list<{ id: number; username: string }>('/api/v1/security/users/', { col: 'username', opr: 'eq', value: username });
    return found.find((candidate) => candidate.username === username)?.id;
  }

  async #roles(names: readonly string[]): Promise<number[]> {
    // Looked up again when one is missing: the viewer role is created after Superset's own.
    if (this.#roleIds === undefined || names.some((name) => this.#roleIds?.has(name) !== true)) {
      const roles = await this.#api.list<{ id: number; name: string }>('/api/v1/security/roles/');
      this.#roleIds = new Map(roles.map((role) => [role.name, role.id]));
    }
    const roleIds = this.#roleIds;
    return names.map((name) => {
      const id = roleIds.get(name);
      if (id === undefined) throw new Error(`Superset has no role ${name}`);
      return id;
    });
  }

  #serialised<T>(work: () => Promise<T>): Promise<T> {
    const turn = this.#queue.then(work);
    this.#queue = turn.catch(() => undefined);
    return turn;
  }
}
