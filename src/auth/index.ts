import { randomUUID } from 'node:crypto';
import type { ProjectConfig } from '../config/index.ts';
import { InvalidRequestError, NotFoundError } from '../errors.ts';
import type { ApiKeyRecord, Role, SessionRecord, Store, UserRecord } from '../store/index.ts';
import type { Actor } from './actions.ts';
import { InvalidCredentialsError, UserExistsError, UserNotFoundError } from './errors.ts';
import { assertAcceptablePassword, hashPassword, verifyPassword } from './passwords.ts';
import { Lockout } from './lockout.ts';
import { Sessions, type ClientInfo } from './sessions.ts';
import { API_KEY_PREFIX, randomToken, sha256Hex } from './tokens.ts';

export { can, assertCan, type Action, type Actor } from './actions.ts';
export { CsrfError, InvalidCredentialsError, UserExistsError, UserNotFoundError } from './errors.ts';
export { WeakPasswordError, MIN_PASSWORD_LENGTH, assertAcceptablePassword } from './passwords.ts';
export { API_KEY_PREFIX } from './tokens.ts';
export type { ClientInfo } from './sessions.ts';
export { LockedOutError } from './lockout.ts';

export interface LoginResult {
  readonly token: string;
  readonly session: SessionRecord;
  readonly user: UserRecord;
}

export interface CreatedApiKey {
  readonly record: ApiKeyRecord;
  /** The plaintext key: returned once, never stored. */
  readonly key: string;
}

export interface Auth {
  login(email: string, password: string, client: ClientInfo): Promise<LoginResult>;
  actorFromSessionToken(token: string): { actor: Actor; session: SessionRecord } | undefined;
  actorFromApiKey(key: string): Actor | undefined;
  logout(sessionId: string): void;
  addUser(input: { email: string; name?: string; role: Role; password: string }): Promise<UserRecord>;
  createApiKey(actor: Actor, input: { name: string; expiresAt: string | null }): CreatedApiKey;
  listApiKeys(actor: Actor): ApiKeyRecord[];
  revokeApiKey(actor: Actor, id: string): void;
  /** Clears the failed-login counters of every client for that email; returns how many were cleared. */
  unlock(email: string): number;
  listUsers(): UserRecord[];
  updateUser(actor: Actor, email: string, changes: { role?: Role; active?: boolean; name?: string }): UserRecord;
  deleteUser(actor: Actor, email: string): void;
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function assertValidEmail(email: string): void {
  if (!EMAIL.test(normalizeEmail(email)) || email.length > 320) throw new InvalidRequestError(`"${email}" is not an email address`);
}

/** Users, password login, sessions and API keys over the platform store. */
export function createAuth(options: { store: Store; config: ProjectConfig; now: () => Date }): Auth {
  const { store, now } = options;
  const sessions = new Sessions(store, options.config.auth, now);
  const lockout = new Lockout(store, now);

  const findUser = (email: string): UserRecord => {
    const user = store.users.findByEmail(normalizeEmail(email));
    if (!user) throw new UserNotFoundError(email);
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

  return {
    async login(email, password, client) {
      const normalized = normalizeEmail(email);
      lockout.assertNotLocked(client.ip, normalized);
      const user = store.users.findByEmail(normalized);
      // Unknown email, inactive account and wrong password all pay for one bcrypt verification.
      const passwordMatches = await verifyPassword(password, user?.passwordHash ?? null);
      if (!user?.active || !passwordMatches) {
        lockout.recordFailure(client.ip, normalized);
        throw new InvalidCredentialsError();
      }
      lockout.recordSuccess(client.ip, normalized);
      const { token, session } = sessions.create(user.id, user.mustChangePassword ? 'password_change' : 'full', client);
      return { token, session, user };
    },

    actorFromSessionToken(token) {
      const active = sessions.resolve(token);
      if (!active) return undefined;
      return { actor: actorOf(active.user, { sessionId: active.session.id }), session: active.session };
    },

    actorFromApiKey(key) {
      if (!key.startsWith(API_KEY_PREFIX)) return undefined;
      const record = store.apiKeys.findByHash(sha256Hex(key));
      if (!record || record.revokedAt !== null) return undefined;
      const at = now();
      if (record.expiresAt !== null && Date.parse(record.expiresAt) <= at.getTime()) return undefined;
      const user = store.users.findById(record.userId);
      if (!user?.active) return undefined;
      if (record.lastUsedAt === null || at.getTime() - Date.parse(record.lastUsedAt) >= 60_000) {
        store.apiKeys.markUsed(record.id, at.toISOString());
      }
      return actorOf(user, { apiKeyId: record.id });
    },

    logout(sessionId) {
      sessions.end(sessionId);
    },

    async addUser(input) {
      assertValidEmail(input.email);
      const email = normalizeEmail(input.email);
      assertAcceptablePassword(input.password);
      if (store.users.findByEmail(email)) throw new UserExistsError(email);
      const passwordHash = await hashPassword(input.password);
      try {
        return store.users.insert({ email, name: input.name ?? '', role: input.role, passwordHash }, now().toISOString());
      } catch (error) {
        if (store.users.findByEmail(email)) throw new UserExistsError(email);
        throw error;
      }
    },

    createApiKey(actor, input) {
      const name = input.name.trim();
      if (name.length === 0 || name.length > 100) throw new InvalidRequestError('The key name must have 1 to 100 characters');
      const expiresAt = input.expiresAt === null ? null : parseExpiry(input.expiresAt, now());
      const key = `${API_KEY_PREFIX}${randomToken()}`;
      const record = store.apiKeys.insert({
        id: randomUUID(),
        userId: actor.userId,
        name,
        keyHash: sha256Hex(key),
        prefix: key.slice(0, API_KEY_PREFIX.length + 6),
        expiresAt,
      }, now().toISOString());
      return { record, key };
    },

    listApiKeys(actor) {
      return store.apiKeys.listActiveForUser(actor.userId);
    },

    revokeApiKey(actor, id) {
      if (!store.apiKeys.revoke(id, actor.userId, now().toISOString())) {
        throw new NotFoundError(`No API key with id ${id}`);
      }
    },

    unlock(email) {
      return lockout.unlock(normalizeEmail(email));
    },

    listUsers() {
      return store.users.list();
    },

    updateUser(actor, email, changes) {
      const user = findUser(email);
      if (user.id === actor.userId && (changes.active === false || (changes.role !== undefined && changes.role !== 'admin'))) {
        throw new InvalidRequestError('You cannot demote or deactivate yourself; ask another admin');
      }
      store.transaction(() => {
        store.users.update(user.id, changes, now().toISOString());
        // A changed role or a deactivation takes effect at once: the user signs in again.
        if ((changes.role !== undefined && changes.role !== user.role) || changes.active === false) {
          sessions.endAllForUser(user.id);
        }
      });
      return findUser(email);
    },

    deleteUser(actor, email) {
      const user = findUser(email);
      if (user.id === actor.userId) throw new InvalidRequestError('You cannot delete your own account');
      store.users.delete(user.id);
    },
  };
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
