import type { ApiKeyRecord, Store, UserRecord } from '../store/index.ts';
import { bookkeepingWrite } from './bookkeeping-write.ts';
import { CredentialCache } from './credential-cache.ts';
import { API_KEY_PREFIX, sha256Hex } from './tokens.ts';

/** last_used_at is written at most this often, so a busy client does not turn every read into a write. */
const MARK_USED_INTERVAL_MS = 60_000;

export interface ActiveApiKey {
  readonly record: ApiKeyRecord;
  readonly user: UserRecord;
}

/** Resolves presented API keys to their live record and user: revoked, expired and inactive users' keys are refused. */
export class ApiKeyResolver {
  readonly #store: Store;
  readonly #now: () => Date;
  readonly #resolved: CredentialCache<ActiveApiKey>;

  constructor(store: Store, now: () => Date) {
    this.#store = store;
    this.#now = now;
    this.#resolved = new CredentialCache(() => store.credentialGeneration.current());
  }

  /** A cached key is answered without reading the store; its last use is written at most once a minute. */
  async resolve(key: string): Promise<ActiveApiKey | undefined> {
    if (!key.startsWith(API_KEY_PREFIX)) return undefined;
    const keyHash = sha256Hex(key);
    const { value: cached, generation } = await this.#resolved.get(keyHash);
    const active = cached ?? await this.#read(keyHash, generation);
    if (!active) return undefined;
    const at = this.#now();
    const { record } = active;
    if (record.expiresAt !== null && Date.parse(record.expiresAt) <= at.getTime()) return undefined;
    if (record.lastUsedAt !== null && at.getTime() - Date.parse(record.lastUsedAt) < MARK_USED_INTERVAL_MS) return active;
    const lastUsedAt = at.toISOString();
    if (!await bookkeepingWrite(() => this.#store.apiKeys.markUsed(record.id, lastUsedAt))) return active;
    const marked = { record: Object.freeze({ ...record, lastUsedAt }), user: active.user };
    await this.#resolved.set(keyHash, marked, generation);
    return marked;
  }

  /** Reads the key and its user from the store and caches them, unless the generation moved, while the key may be used. */
  async #read(keyHash: string, generation: number): Promise<ActiveApiKey | undefined> {
    const record = await this.#store.apiKeys.findByHash(keyHash);
    if (!record || record.revokedAt !== null) return undefined;
    const user = await this.#store.users.findById(record.userId);
    if (!user?.active) return undefined;
    const active = { record, user };
    await this.#resolved.set(keyHash, active, generation);
    return active;
  }
}
