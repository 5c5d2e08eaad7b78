import { randomBytes, randomUUID } from 'node:crypto';
import type { ProjectConfig } from '../config/index.ts';
import { ForbiddenError, InvalidRequestError, NotFoundError } from '../errors.ts';
import type { ApiKeyRecord, AuditEvent, Role, SessionRecord, SessionStage, Store, UserRecord } from '../store/index.ts';
import type { Actor } from './actions.ts';
import { ApiKeyResolver } from './api-key-resolver.ts';
import { InvalidCredentialsError, TwoFactorAttemptsExhaustedError, TwoFactorNotPendingError, UserExistsError, UserNotFoundError } from './errors.ts';
import { Lockout } from './lockout.ts';
import { assertAcceptablePassword, PasswordHasher, WeakPasswordError } from './passwords.ts';
import { Sessions, type ClientInfo } from './sessions.ts';
import { API_KEY_PREFIX, randomToken, sha256Hex } from './tokens.ts';
import { InvalidTotpCodeError, TwoFactor, type TotpEnrollment } from './two-factor.ts';
import { TOTP_FAILURES_PER_LOGIN, TwoFactorLockout } from './two-factor-lockout.ts';

export interface NewSession {
  readonly token: string;
  readonly session: SessionRecord;
  readonly user: UserRecord;
}

export interface PasswordChange {
  readonly currentPassword: string;
  readonly newPassword: string;
  /** Revoke every API key of the user too: a password change after a leak should not leave a leaked key working. */
  readonly revokeApiKeys: boolean;
}

export interface CreatedApiKey {
  readonly record: ApiKeyRecord;
  /** The plaintext key: returned once, never stored. */
  readonly key: string;
}

export interface Auth {
  /** Password login; the new session is partial while two-factor or a password change is due. */
  login(email: string, password: string, client: ClientInfo): Promise<NewSession>;
  /** Completes a partial session with a TOTP code, replacing it with a new one. */
  verifyTwoFactor(actor: Actor, code: string, client: ClientInfo): Promise<NewSession>;
  /** Logs in a user an OAuth provider vouched for; OAuth never creates accounts and skips password rotation. */
  loginWithOAuth(identity: { email: string; subject: string; provider: string }, client: ClientInfo): Promise<NewSession | undefined>;
  /** Answered from a cache, without reading the store, for a session resolved since the last credential change. */
  actorFromSessionToken(token: string): Promise<{ actor: Actor; session: SessionRecord } | undefined>;
  /** Answered from a cache, without reading the store, for a key resolved since the last credential change. */
  actorFromApiKey(key: string): Promise<Actor | undefined>;
  logout(actor: Actor, client: ClientInfo): Promise<void>;
  user(actor: Actor): Promise<UserRecord>;
  /** The user with that id, or undefined when there is none (removed since the session began). */
  findUser(userId: number): Promise<UserRecord | undefined>;

  listSessions(actor: Actor): Promise<SessionRecord[]>;
  endSession(actor: Actor, sessionId: string): Promise<void>;
  endOtherSessions(actor: Actor): Promise<number>;
  /**
   * Changes the caller's password (from a browser session only: it signs out every other session), revokes the
   * user's API keys when asked, and returns a fresh session for this one. Wrong current passwords lock like logins.
   */
  changePassword(actor: Actor, change: PasswordChange, client: ClientInfo): Promise<NewSession>;

  setupTwoFactor(actor: Actor): Promise<TotpEnrollment>;
  enableTwoFactor(actor: Actor, code: string): Promise<void>;
  disableTwoFactor(actor: Actor, code: string): Promise<void>;

  createApiKey(actor: Actor, input: { name: string; expiresAt: string | null }): Promise<CreatedApiKey>;
  listApiKeys(actor: Actor): Promise<ApiKeyRecord[]>;
  revokeApiKey(actor: Actor, id: string): Promise<void>;

  addUser(input: { email: string; name?: string; role: Role; password: string; mustChangePassword?: boolean }, by?: Actor): Promise<UserRecord>;
  listUsers(): Promise<UserRecord[]>;
  updateUser(actor: Actor, email: string, changes: { role?: Role; active?: boolean; name?: string }): Promise<UserRecord>;
  /** Resolves to the user as it was. */
  deleteUser(actor: Actor, email: string): Promise<UserRecord>;
  /** Clears the failed-login counters of every client for that email and the user's two-factor lock; resolves to how many were cleared. */
  unlock(email: string): Promise<number>;
  /** An emergency admin with a temporary password that must be changed at first login. */
  recover(): Promise<{ email: string; password: string }>;
  auditLog(limit: number): Promise<AuditEvent[]>;
}

/** What the user administration accepts as an email address (after trimming and lower-casing). */
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+$/;
const DAY_MS = 86_400_000;

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function assertValidEmail(email: string): void {
  if (email.length > 320 || !EMAIL_PATTERN.test(normalizeEmail(email))) throw new InvalidRequestError(`"${email}" is not an email address`);
}

/** Users, logins, sessions, two-factor, API keys and the audit log, over the platform store. */
export function createAuth(options: {
  store: Store; config: ProjectConfig; secretKey: Buffer; now: () => Date; passwordCost?: number;
}): Auth {
  const { store, now } = options;
  const passwords = new PasswordHasher(options.passwordCost);
  const sessions = new Sessions(store, options.config.auth, now);
  const apiKeys = new ApiKeyResolver(store, now);
  const lockout = new Lockout(store, now);
  const twoFactorLockout = new TwoFactorLockout(store, now);
  const twoFactor = new TwoFactor({ store, secretKey: options.secretKey, now, issuer: `Quarry (${options.config.name})` });

  const audit = async (event: string, fields: { actor?: string | null; subject?: string | null; ip?: string | null; detail?: string | null } = {}): Promise<void> => {
    await store.audit.append({
      at: now().toISOString(), event, actorEmail: fields.actor ?? null, subject: fields.subject ?? null,
      ip: fields.ip ?? null, detail: fields.detail ?? null,
    });
  };

  const findUser = async (email: string): Promise<UserRecord> => {
    const user = await store.users.findByEmail(normalizeEmail(email));
    if (!user) throw new UserNotFoundError(email);
    return user;
  };

  const userOf = async (actor: Actor): Promise<UserRecord> => {
    const user = await store.users.findById(actor.userId);
    if (!user) throw new UserNotFoundError(actor.email);
    return user;
  };

  const actorOf = (user: UserRecord, via: { sessionId?: string; apiKeyId?: string }): Actor => Object.freeze({
    userId: user.id,
    email: user.email,
    name: user.name,
    role: user.role,
    authMethod: via.apiKeyId === undefined ? 'session' : 'api_key',
    sessionId: via.sessionId ?? null,
    apiKeyId: via.apiKeyId ?? null,
  });

  const isPasswordExpired = (user: UserRecord): boolean => {
    const maxAgeDays = options.config.auth.password_max_age_days;
    if (maxAgeDays <= 0 || user.passwordChangedAt === null) return false;
    return now().getTime() - Date.parse(user.passwordChangedAt) > maxAgeDays * DAY_MS;
  };

  /** What a login may do next: the password step is done; 2FA and a due password change still gate it. */
  const stageAfterPassword = (user: UserRecord): SessionStage => {
    if (user.totpEnabled) return 'partial';
    return user.mustChangePassword || isPasswordExpired(user) ? 'password_change' : 'full';
  };

  const startSession = async (user: UserRecord, stage: SessionStage, client: ClientInfo): Promise<NewSession> => {
    const { token, session } = await sessions.create(user.id, stage, client);
    return { token, session, user };
  };

  const requireSessionActor = (actor: Actor): string => {
    if (actor.sessionId === null) throw new InvalidRequestError('This needs a signed-in browser session, not an API key');
    return actor.sessionId;
  };

  /**
   * Checks a TOTP code against the user's two-factor lockout, counting a wrong one (against the partial session too,
   * which ends at its limit). Called within a transaction, so that the check and the count are one step; a wrong code
   * is not thrown but returned, for `throwWrongCode` once what it recorded is committed.
   */
  const checkCountingFailures = async (user: UserRecord, code: string, partialSessionId: string | null, client: ClientInfo | null): Promise<WrongCode | undefined> => {
    await twoFactorLockout.assertNotLocked(user.id);
    try {
      await twoFactor.verify(user, code);
    } catch (error) {
      if (!(error instanceof InvalidTotpCodeError)) throw error;
      const outcome = await twoFactorLockout.recordFailure(user.id, partialSessionId);
      await audit(outcome.userLocked ? '2fa_locked_out' : '2fa_failed', { actor: user.email, ip: client?.ip ?? null });
      const loginEnded = partialSessionId !== null && (outcome.loginExhausted || outcome.userLocked);
      if (loginEnded) {
        await sessions.end(partialSessionId);
        await audit('2fa_login_ended', { actor: user.email, ip: client?.ip ?? null });
      }
      return { error, userId: user.id, userLocked: outcome.userLocked, loginEnded };
    }
    await twoFactorLockout.recordSuccess(user.id);
    return undefined;
  };

  const throwWrongCode = async (wrong: WrongCode): Promise<never> => {
    if (wrong.userLocked) await twoFactorLockout.assertNotLocked(wrong.userId);
    if (wrong.loginEnded) throw new TwoFactorAttemptsExhaustedError(TOTP_FAILURES_PER_LOGIN);
    throw wrong.error;
  };

  return {
    async login(email, password, client) {
      const normalized = normalizeEmail(email);
      await lockout.assertNotLocked(client.ip, normalized);
      const user = await store.users.findByEmail(normalized);
      // Unknown email, inactive account and wrong password all pay for one bcrypt verification.
      const passwordMatches = await passwords.verify(password, user?.passwordHash ?? null);
      if (!user?.active || !passwordMatches) {
        const locked = await lockout.recordFailure(client.ip, normalized);
        await audit(locked ? 'login_locked_out' : 'login_failed', { subject: normalized, ip: client.ip });
        throw new InvalidCredentialsError();
      }
      await lockout.recordSuccess(client.ip, normalized);
      const stage = stageAfterPassword(user);
      await audit(stage === 'partial' ? 'login_password_ok_2fa_pending' : 'login_succeeded', { actor: user.email, ip: client.ip });
      return startSession(user, stage, client);
    },

    async verifyTwoFactor(actor, code, client) {
      const sessionId = requireSessionActor(actor);
      const outcome = await store.transaction(async (): Promise<{ wrong: WrongCode } | { started: NewSession }> => {
        if ((await store.sessions.findById(sessionId))?.stage !== 'partial') throw new TwoFactorNotPendingError();
        const user = await userOf(actor);
        const wrong = await checkCountingFailures(user, code, sessionId, client);
        if (wrong) return { wrong };
        await sessions.end(sessionId);
        await audit('login_succeeded', { actor: user.email, ip: client.ip, detail: 'two-factor' });
        return { started: await startSession(user, user.mustChangePassword || isPasswordExpired(user) ? 'password_change' : 'full', client) };
      });
      return 'wrong' in outcome ? throwWrongCode(outcome.wrong) : outcome.started;
    },

    async loginWithOAuth(identity, client) {
      const user = await store.users.findByEmail(normalizeEmail(identity.email));
      if (!user?.active) {
        await audit('oauth_login_refused', { subject: normalizeEmail(identity.email), ip: client.ip, detail: identity.provider });
        return undefined;
      }
      if (user.oauthProvider !== identity.provider) {
        await store.users.linkOAuth(user.id, identity.provider, identity.subject, now().toISOString());
        await audit('oauth_linked', { actor: user.email, detail: identity.provider });
      }
      await audit('login_succeeded', { actor: user.email, ip: client.ip, detail: identity.provider });
      // The provider vouched for the person: no password step, so neither rotation nor our TOTP applies.
      return startSession(user, 'full', client);
    },

    async actorFromSessionToken(token) {
      const active = await sessions.resolve(token);
      if (!active) return undefined;
      return { actor: actorOf(active.user, { sessionId: active.session.id }), session: active.session };
    },

    async actorFromApiKey(key) {
      const active = await apiKeys.resolve(key);
      return active === undefined ? undefined : actorOf(active.user, { apiKeyId: active.record.id });
    },

    async logout(actor, client) {
      if (actor.sessionId === null) return;
      await sessions.end(actor.sessionId);
      await audit('logout', { actor: actor.email, ip: client.ip });
    },

    user: userOf,
    findUser: (userId) => store.users.findById(userId),

    async listSessions(actor) {
      return sessions.listForUser(actor.userId);
    },

    async endSession(actor, sessionId) {
      requireSessionActor(actor);
      const owned = (await sessions.listForUser(actor.userId)).some((session) => session.id === sessionId);
      if (!owned) throw new NotFoundError(`No session with id ${sessionId}`);
      await sessions.end(sessionId);
      await audit('session_ended', { actor: actor.email });
    },

    async endOtherSessions(actor) {
      requireSessionActor(actor);
      const ended = await sessions.endAllForUser(actor.userId, actor.sessionId ?? undefined);
      await audit('other_sessions_ended', { actor: actor.email, detail: String(ended) });
      return ended;
    },

    async changePassword(actor, { currentPassword, newPassword, revokeApiKeys }, client) {
      requireSessionActor(actor);
      const user = await userOf(actor);
      await lockout.assertNotLocked(client.ip, user.email);
      if (!await passwords.verify(currentPassword, user.passwordHash)) {
        const locked = await lockout.recordFailure(client.ip, user.email);
        await audit(locked ? 'password_change_locked_out' : 'password_change_failed', { actor: user.email, ip: client.ip });
        throw new InvalidCredentialsError();
      }
      await lockout.recordSuccess(client.ip, user.email);
      assertAcceptablePassword(newPassword);
      if (newPassword === currentPassword) throw new WeakPasswordError('The new password must differ from the current one');
      const passwordHash = await passwords.hash(newPassword);
      const at = now().toISOString();
      const revokedKeys = await store.transaction(async () => {
        await store.users.setPassword(user.id, passwordHash, false, at);
        await sessions.endAllForUser(user.id);
        return revokeApiKeys ? store.apiKeys.revokeAllForUser(user.id, at) : 0;
      });
      await audit('password_changed', { actor: user.email, ip: client.ip, detail: revokeApiKeys ? `${String(revokedKeys)} API keys revoked` : null });
      return startSession(await userOf(actor), 'full', client);
    },

    async setupTwoFactor(actor) {
      requireSessionActor(actor);
      return twoFactor.setup(await userOf(actor));
    },

    async enableTwoFactor(actor, code) {
      requireSessionActor(actor);
      await store.transaction(async () => {
        await twoFactor.enable(await userOf(actor), code);
        await audit('2fa_enabled', { actor: actor.email });
      });
    },

    async disableTwoFactor(actor, code) {
      requireSessionActor(actor);
      const wrong = await store.transaction(async () => {
        const user = await userOf(actor);
        if (!user.totpEnabled) throw new InvalidRequestError('Two-factor authentication is not on');
        const wrongCode = await checkCountingFailures(user, code, null, null);
        if (wrongCode) return wrongCode;
        await twoFactor.disable(user);
        await audit('2fa_disabled', { actor: actor.email });
        return undefined;
      });
      if (wrong) await throwWrongCode(wrong);
    },

    async createApiKey(actor, input) {
      // A key that could mint keys would outlive its own revocation.
      requireSessionActor(actor);
      const name = input.name.trim();
      if (name.length === 0 || name.length > 100) throw new InvalidRequestError('The key name must have 1 to 100 characters');
      const expiresAt = input.expiresAt === null ? null : parseExpiry(input.expiresAt, now());
      const key = `${API_KEY_PREFIX}${randomToken()}`;
      const record = await store.apiKeys.insert({
        id: randomUUID(), userId: actor.userId, name, keyHash: sha256Hex(key), prefix: key.slice(0, API_KEY_PREFIX.length + 6), expiresAt,
      }, now().toISOString());
      await audit('api_key_created', { actor: actor.email, subject: record.prefix, detail: name });
      return { record, key };
    },

    async listApiKeys(actor) {
      return store.apiKeys.listActiveForUser(actor.userId);
    },

    async revokeApiKey(actor, id) {
      if (!await store.apiKeys.revoke(id, actor.userId, now().toISOString())) throw new NotFoundError(`No API key with id ${id}`);
      await audit('api_key_revoked', { actor: actor.email, subject: id });
    },

    async addUser(input, by) {
      assertValidEmail(input.email);
      const email = normalizeEmail(input.email);
      assertAcceptablePassword(input.password);
      if (await store.users.findByEmail(email)) throw new UserExistsError(email);
      const passwordHash = await passwords.hash(input.password);
      let user: UserRecord;
      try {
        user = await store.users.insert({
          email, name: input.name ?? '', role: input.role, passwordHash, mustChangePassword: input.mustChangePassword === true,
        }, now().toISOString());
      } catch (error) {
        if (await store.users.findByEmail(email)) throw new UserExistsError(email);
        throw error;
      }
      await audit('user_added', { actor: by?.email ?? null, subject: email, detail: input.role });
      return user;
    },

    async listUsers() {
      return store.users.list();
    },

    async updateUser(actor, email, changes) {
      // One transaction: what is compared, changed, audited and answered is the user as this change found it.
      return store.transaction(async () => {
        const user = await findUser(email);
        if (user.id === actor.userId && (changes.active === false || (changes.role !== undefined && changes.role !== 'admin'))) {
          throw new ForbiddenError('You cannot demote or deactivate yourself; ask another admin');
        }
        const roleChanged = changes.role !== undefined && changes.role !== user.role;
        const deactivated = changes.active === false && user.active;
        await store.users.update(user.id, changes, now().toISOString());
        // A changed role or a deactivation takes effect at once: the user signs in again.
        if (roleChanged || deactivated) await sessions.endAllForUser(user.id);
        if (roleChanged) await audit('role_changed', { actor: actor.email, subject: user.email, detail: `${user.role} -> ${String(changes.role)}` });
        if (changes.active !== undefined && changes.active !== user.active) {
          await audit(changes.active ? 'user_activated' : 'user_deactivated', { actor: actor.email, subject: user.email });
        }
        return findUser(email);
      });
    },

    async deleteUser(actor, email) {
      const user = await findUser(email);
      if (user.id === actor.userId) throw new ForbiddenError('You cannot delete your own account');
      await store.users.delete(user.id);
      await audit('user_deleted', { actor: actor.email, subject: user.email });
      return user;
    },

    async unlock(email) {
      const user = await store.users.findByEmail(normalizeEmail(email));
      const cleared = await lockout.unlock(normalizeEmail(email)) + (user !== undefined && await twoFactorLockout.unlock(user.id) ? 1 : 0);
      await audit('lockout_cleared', { subject: normalizeEmail(email), detail: String(cleared) });
      return cleared;
    },

    async recover() {
      const email = `recovery-${randomBytes(3).toString('hex')}@quarry.local`;
      const password = randomBytes(12).toString('base64url');
      await this.addUser({ email, name: 'Emergency admin', role: 'admin', password, mustChangePassword: true });
      await audit('recovery_admin_created', { subject: email });
      return { email, password };
    },

    async auditLog(limit) {
      return store.audit.latest(limit);
    },
  };
}

/** A wrong two-factor code, counted: what to throw once the count is committed. */
interface WrongCode {
  readonly error: InvalidTotpCodeError;
  readonly userId: number;
  readonly userLocked: boolean;
  readonly loginEnded: boolean;
}

const DATETIME_WITHOUT_ZONE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?)?$/;

/** `expires_at` is an ISO 8601 datetime without zone, read as UTC; it must lie in the future. */
function parseExpiry(value: string, now: Date): string {
  if (!DATETIME_WITHOUT_ZONE.test(value)) {
    throw new InvalidRequestError('expires_at must be an ISO 8601 datetime without zone, such as 2027-01-31T12:00:00 (read as UTC)');
  }
  const instant = new Date(value.includes('T') ? `${value}Z` : `${value}T00:00:00Z`);
  if (Number.isNaN(instant.getTime()) || instant.toISOString().slice(0, 10) !== value.slice(0, 10)) {
    throw new InvalidRequestError(`expires_at ${value} is not a real date`);
  }
  if (instant.getTime() <= now.getTime()) throw new InvalidRequestError('expires_at must be in the future');
  return instant.toISOString();
}
