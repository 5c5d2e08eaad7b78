import { randomUUID } from 'node:crypto';
import type { ProjectConfig } from '../config/index.ts';
import type { SessionRecord, SessionStage, Store, UserRecord } from '../store/index.ts';
import { bookkeepingWrite } from './bookkeeping-write.ts';
import { CredentialCache } from './credential-cache.ts';
import { randomToken, sha256Hex } from './tokens.ts';

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;
/** last_seen_at is written at most this often, so a busy client does not turn every read into a write. */
const TOUCH_INTERVAL_MS = MINUTE_MS;

export interface ClientInfo {
  readonly ip: string;
  readonly userAgent: string;
}

export interface ActiveSession {
  readonly session: SessionRecord;
  readonly user: UserRecord;
}

/** Server-side sessions: the client holds a random token, the store only its SHA-256. */
export class Sessions {
  readonly #store: Store;
  readonly #auth: ProjectConfig['auth'];
  readonly #now: () => Date;
  readonly #resolved: CredentialCache<ActiveSession>;

  constructor(store: Store, auth: ProjectConfig['auth'], now: () => Date) {
    this.#store = store;
    this.#auth = auth;
    this.#now = now;
    this.#resolved = new CredentialCache(() => store.credentialGeneration.current());
  }

  async create(userId: number, stage: SessionStage, client: ClientInfo): Promise<{ token: string; session: SessionRecord }> {
    const token = randomToken();
    const id = randomUUID();
    await this.#store.sessions.insert(
      { id, tokenHash: sha256Hex(token), userId, stage, ip: client.ip, userAgent: client.userAgent.slice(0, 512) },
      this.#now().toISOString(),
    );
    const session = await this.#store.sessions.findByTokenHash(sha256Hex(token));
    if (!session) throw new Error('session vanished right after insert');
    return { token, session };
  }

  /**
   * The live session and user behind a token; expired sessions and inactive users are removed or refused. A cached
   * one is answered without reading the store; its last-seen time is written at most once a minute.
   */
  async resolve(token: string): Promise<ActiveSession | undefined> {
    const tokenHash = sha256Hex(token);
    const { value: cached, generation } = await this.#resolved.get(tokenHash);
    const active = cached ?? await this.#read(tokenHash, generation);
    if (!active) return undefined;
    const now = this.#now();
    const { session } = active;
    if (this.#isExpired(session, now)) {
      this.#resolved.delete(tokenHash);
      await bookkeepingWrite(() => this.#store.sessions.delete(session.id));
      return undefined;
    }
    if (now.getTime() - Date.parse(session.lastSeenAt) < TOUCH_INTERVAL_MS) return active;
    const lastSeenAt = now.toISOString();
    if (!await bookkeepingWrite(() => this.#store.sessions.touch(session.id, lastSeenAt))) return active;
    const touched = { session: Object.freeze({ ...session, lastSeenAt }), user: active.user };
    await this.#resolved.set(tokenHash, touched, generation);
    return touched;
  }

  /** Reads the session and its user from the store and caches them, unless the generation moved, while the user may use it. */
  async #read(tokenHash: string, generation: number): Promise<ActiveSession | undefined> {
    const session = await this.#store.sessions.findByTokenHash(tokenHash);
    if (!session) return undefined;
    const user = await this.#store.users.findById(session.userId);
    if (!user?.active) return undefined;
    const active = { session, user };
    await this.#resolved.set(tokenHash, active, generation);
    return active;
  }

  async listForUser(userId: number): Promise<SessionRecord[]> {
    const now = this.#now();
    return (await this.#store.sessions.listForUser(userId)).filter((session) => !this.#isExpired(session, now));
  }

  async end(sessionId: string): Promise<boolean> {
    return this.#store.sessions.delete(sessionId);
  }

  async endAllForUser(userId: number, exceptSessionId?: string): Promise<number> {
    return this.#store.sessions.deleteForUser(userId, exceptSessionId);
  }

  #isExpired(session: SessionRecord, now: Date): boolean {
    const age = now.getTime() - Date.parse(session.createdAt);
    const idle = now.getTime() - Date.parse(session.lastSeenAt);
    if (session.stage === 'partial') return age > PARTIAL_SESSION_MS;
    return age > this.#auth.session_max_days * DAY_MS || idle > this.#auth.idle_timeout_minutes * MINUTE_MS;
  }
}

/** A two-factor login must be completed within five minutes (spec section 8). */
export const PARTIAL_SESSION_MS = 5 * MINUTE_MS;
