import { randomBytes } from 'node:crypto';
import { encryptSecret } from '../config/index.ts';
import { describeError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { DashboardAccount, Role, Store, UserRecord } from '../store/index.ts';
import { SupersetApiError, type SupersetApi } from './superset-api.ts';
import type { SupersetProcess } from './superset-process.ts';
import { VIEWER_ROLE, type SupersetRoles } from './superset-roles.ts';

/** Quarry role → Superset roles (the viewer role reads dashboards, charts and the warehouse, and writes nothing). */
const SUPERSET_ROLES: Record<Role, readonly string[]> = {
  admin: ['Admin'],
  editor: ['Alpha', 'sql_lab'],
  viewer: [VIEWER_ROLE],
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
  readonly #roles: SupersetRoles;
  readonly #pending = new Map<number, Promise<void>>();
  /** Users whose account was synced since Superset last started. */
  readonly #inStep = new Set<number>();
  /** One sync at a time, so two requests never create the same account twice. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: { superset: SupersetProcess; api: SupersetApi; roles: SupersetRoles; store: Store; secretKey: Buffer; log: Logger; now: () => Date }) {
    this.#superset = options.superset;
    this.#api = options.api;
    this.#roles = options.roles;
    this.#store = options.store;
    this.#secretKey = options.secretKey;
    this.#log = options.log;
    this.#now = options.now;
  }

  /** Superset's name for a platform user: the email, which is unique on both sides. */
  static usernameOf(user: Pick<UserRecord, 'email'>): string {
    return user.email;
  }

  /**
   * The headers that make Superset see `user`; the secret proves they come from this proxy. The name is
   * percent-encoded (superset_config.py decodes it): a header value cannot carry every email.
   */
  identityHeaders(user: Pick<UserRecord, 'email'>): Record<string, string> {
    return { 'x-quarry-user': encodeURIComponent(DashboardBridge.usernameOf(user)), 'x-quarry-proxy-secret': this.#superset.proxySecret };
  }

  account(userId: number): Promise<DashboardAccount | undefined> {
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

  /** Superset (re)started: its metadata DB, and with it the role ids and users, may be new. */
  supersetRestarted(): void {
    this.#roles.forget();
    this.#inStep.clear();
  }

  /** Creates or updates every user's account and disables those of deleted users; one failing user does not stop the others. */
  async syncAll(): Promise<void> {
    const users = await this.#store.users.list();
    for (const user of users) {
      try {
        await this.syncUser(user.id);
      } catch (error) {
        this.#log.warn({ userId: user.id, reason: describeError(error) }, 'a dashboard account could not be synced');
      }
    }
    const known = new Set(users.map((user) => user.id));
    for (const account of await this.#store.dashboardAccounts.list()) {
      if (!known.has(account.userId)) await this.removeUser(account.userId);
    }
  }

  /**
   * Brings the user's account in line with the user as stored when its turn comes (a change made while
   * it waited is never undone by an older copy); a user deleted meanwhile has its account disabled.
   */
  async syncUser(userId: number): Promise<void> {
    await this.#serialised(async () => {
      const user = await this.#store.users.findById(userId);
      if (user === undefined) await this.#retire(userId);
      else await this.#sync(user);
    });
  }

  /**
   * Syncs the user unless the recorded account already matches and was checked since Superset started:
   * the proxy's lazy path (users added or changed while Superset was down, or by the CLI). The parallel
   * requests of one page share one sync.
   */
  async ensureAccount(user: UserRecord): Promise<void> {
    if (await this.#inStepWith(user)) return;
    let pending = this.#pending.get(user.id);
    if (pending === undefined) {
      pending = this.syncUser(user.id).finally(() => { this.#pending.delete(user.id); });
      this.#pending.set(user.id, pending);
    }
    await pending;
  }

  /** Disables the account of a deleted user and forgets it, so a new user given the same id starts afresh. */
  async removeUser(userId: number): Promise<void> {
    await this.#serialised(() => this.#retire(userId));
  }

  async #inStepWith(user: UserRecord): Promise<boolean> {
    if (!this.#inStep.has(user.id)) return false;
    const account = await this.account(user.id);
    return this.#inStep.has(user.id) && account?.active === user.active && account.role === user.role
      && account.username === DashboardBridge.usernameOf(user);
  }

  async #sync(user: UserRecord): Promise<void> {
    if (await this.#inStepWith(user)) return;
    const username = DashboardBridge.usernameOf(user);
    const existing = await this.account(user.id);
    // A row left by a deleted user whose id this user was given: that account is not this user's.
    if (existing !== undefined && existing.username !== username) await this.#retire(user.id);
    const recorded = existing?.username === username ? existing : undefined;
    const roleIds = await this.#roles.ids(SUPERSET_ROLES[user.role]);
    let supersetUserId = await this.#recordedUser(recorded) ?? await this.#findUser(username);
    const [firstName, ...rest] = (user.name.trim() || username).split(/\s+/);
    const fields = { first_name: firstName ?? username, last_name: rest.join(' ') || '-', username, email: user.email, active: user.active, roles: roleIds };
    let passwordEncrypted = recorded?.passwordEncrypted;
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
    await this.#store.dashboardAccounts.save({
      userId: user.id, username, supersetUserId, passwordEncrypted, active: user.active, role: user.role, syncedAt: this.#now().toISOString(),
    });
    this.#inStep.add(user.id);
    this.#log.info({ userId: user.id, role: user.role, active: user.active }, 'dashboard account synced');
  }

  /** Disables the Superset account recorded for `userId` (if it is still that account) and drops the record. */
  async #retire(userId: number): Promise<void> {
    const account = await this.account(userId);
    if (account === undefined) return;
    const supersetUserId = await this.#recordedUser(account);
    if (supersetUserId !== undefined) await this.#api.request('PUT', `/api/v1/security/users/${String(supersetUserId)}`, { active: false });
    await this.#store.dashboardAccounts.delete(userId);
    this.#inStep.delete(userId);
    this.#log.info({ userId }, 'dashboard account of a deleted user disabled');
  }

  /**
   * The recorded Superset user id when Superset still has it under the recorded name: after a rebuild
   * of its metadata DB the same id may belong to someone else.
   */
  async #recordedUser(account: DashboardAccount | undefined): Promise<number | undefined> {
    if (account === undefined) return undefined;
    try {
      const { result } = await this.#api.request<{ result: { username: string } }>('GET', `/api/v1/security/users/${String(account.supersetUserId)}`);
      return result.username === account.username ? account.supersetUserId : undefined;
    } catch (error) {
      if (error instanceof SupersetApiError && error.status === 404) return undefined;
      throw error;
    }
  }

  async #findUser(username: string): Promise<number | undefined> {
    const found = await this.#api.list<{ id: number; username: string }>('/api/v1/security/users/', { col: 'username', opr: 'eq', value: username });
    return found.find((candidate) => candidate.username === username)?.id;
  }

  #serialised<T>(work: () => Promise<T>): Promise<T> {
    const turn = this.#queue.then(work);
    this.#queue = turn.catch(() => undefined);
    return turn;
  }
}
