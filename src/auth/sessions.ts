import { randomUUID } from 'node:crypto';
import type { ProjectConfig } from '../config/index.ts';
import type { SessionRecord, SessionStage, Store, UserRecord } from '../store/index.ts';
import { bookkeepingWrite } from './bookkeeping-write.ts';
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

  constructor(store: Store, auth: ProjectConfig['auth'], now: () => Date) {
    this.#store = store;
    this.#auth = auth;
    this.#now = now;
  }

  create(userId: number, stage: SessionStage, client: ClientInfo): { token: string; session: SessionRecord } {
    const token = randomToken();
    const id = randomUUID();
    this.#store.sessions.insert(
      { id, tokenHash: sha256Hex(token), userId, stage, ip: client.ip, userAgent: client.userAgent.slice(0, 512) },
      this.#now().toISOString(),
    );
    const session = this.#store.sessions.findByTokenHash(sha256Hex(token));
    if (!session) throw new Error('session vanished right after insert');
    return { token, session };
  }

  /** The live session and user behind a token; expired sessions and inactive users are removed or refused. */
  resolve(token: string): ActiveSession | undefined {
    const session = this.#store.sessions.findByTokenHash(sha256Hex(token));
    if (!session) return undefined;
    const now = this.#now();
    if (this.#isExpired(session, now)) {
      bookkeepingWrite(() => { this.#store.sessions.delete(session.id); });
      return undefined;
    }
    const user = this.#store.users.findById(session.userId);
    if (!user?.active) return undefined;
    if (now.getTime() - Date.parse(session.lastSeenAt) >= TOUCH_INTERVAL_MS) {
      bookkeepingWrite(() => { this.#store.sessions.touch(session.id, now.toISOString()); });
    }
    return { session, user };
  }

  listForUser(userId: number): SessionRecord[] {
    const now = this.#now();
    return this.#store.sessions.listForUser(userId).filter((session) => !this.#isExpired(session, now));
  }

  end(sessionId: string): boolean {
    return this.#store.sessions.delete(sessionId);
  }

  endAllForUser(userId: number, exceptSessionId?: string): number {
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
