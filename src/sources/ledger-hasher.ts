import { AsyncResource } from 'node:async_hooks';
import { stat } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import type { FileLedgerRepository, LedgerEntry } from '../store/index.ts';
import type { HashAnswer, HashRequest } from './hash-worker.ts';
import { isObjectUrl } from '../config/index.ts';

/**
 * Records the SHA-256 of the files a sync loaded once the sync has committed, in a worker thread at low priority.
 * The hash only lets a later sync skip a file whose time or size changed but whose content did not, so no load
 * waits for it: for a 685 MB file it is 0.8 s of CPU that competed with DuckDB's load and with readers' queries.
 * Until it is recorded the ledger holds '', which makes such a file load again, so the next sync of a source
 * waits for its hashes first. A file that changed after the sync read it keeps ''.
 *
 * A sync asks while its ending is being recorded, inside the platform DB's transaction; the hashes are recorded
 * in the async context the hasher was made in, so they never join that transaction or another caller's.
 */
export class LedgerHasher {
  readonly #ledger: FileLedgerRepository;
  /** Per source, the hashing of its last syncs, in order. It never rejects. */
  readonly #pending = new Map<string, Promise<void>>();
  readonly #answers = new Map<number, (answer: HashAnswer) => void>();
  /** The async context the hasher was made in. */
  readonly #context = new AsyncResource('LedgerHasher');
  #worker: Worker | undefined;
  #nextId = 0;

  constructor(ledger: FileLedgerRepository) {
    this.#ledger = ledger;
  }

  /** Hashes the entries a sync recorded without a hash, after whatever is still hashing for the source. */
  hashLater(source: string, entries: readonly LedgerEntry[]): void {
    // An object in a bucket is never downloaded to be hashed: its ETag stands for the hash.
    const unhashed = entries.filter((entry) => entry.sha256 === '' && !isObjectUrl(entry.path));
    if (unhashed.length === 0) return;
    const done = (this.#pending.get(source) ?? Promise.resolve())
      .then(() => this.#context.runInAsyncScope(() => this.#hashAll(source, unhashed)));
    this.#pending.set(source, done);
    void done.then(() => { if (this.#pending.get(source) === done) this.#pending.delete(source); });
  }

  /** Resolves once the source's hashes so far are recorded. */
  async settled(source: string): Promise<void> {
    await this.#pending.get(source);
  }

  /** Resolves once no hashing is left, for any source. */
  async idle(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all(this.#pending.values());
  }

  /** Waits for what is hashing, then ends the worker thread. */
  async close(): Promise<void> {
    await this.idle();
    await this.#worker?.terminate();
    this.#worker = undefined;
  }

  async #hashAll(source: string, entries: readonly LedgerEntry[]): Promise<void> {
    for (const entry of entries) {
      try {
        const sha256 = await this.#hashUnchanged(entry);
        if (sha256 !== undefined) await this.#ledger.recordHash(source, entry, sha256);
      } catch {
        // The entry keeps '': its file loads again when it changes, as it would have without the hash.
      }
    }
  }

  /** The file's hash, or undefined when the file is not as the sync recorded it (changed or gone). */
  async #hashUnchanged(entry: LedgerEntry): Promise<string | undefined> {
    if (!await isAsRecorded(entry)) return undefined;
    const answer = await this.#ask(entry.path);
    return 'sha256' in answer && await isAsRecorded(entry) ? answer.sha256 : undefined;
  }

  #ask(file: string): Promise<HashAnswer> {
    const worker = this.#worker ?? this.#startWorker();
    const id = this.#nextId++;
    const { promise, resolve } = Promise.withResolvers<HashAnswer>();
    this.#answers.set(id, resolve);
    // Referenced only while it works: a command whose sync loaded files stays until their hashes are recorded.
    worker.ref();
    worker.postMessage({ id, file } satisfies HashRequest);
    return promise;
  }

  #startWorker(): Worker {
    const worker = new Worker(new URL('hash-worker.ts', import.meta.url));
    const answerAll = (error: string): void => {
      for (const [id, answer] of this.#answers) answer({ id, error });
      this.#answers.clear();
      if (this.#worker === worker) this.#worker = undefined;
    };
    worker.on('message', (answer: HashAnswer) => {
      this.#answers.get(answer.id)?.(answer);
      this.#answers.delete(answer.id);
      if (this.#answers.size === 0) worker.unref();
    });
    worker.on('error', (error) => { answerAll(String(error)); });
    worker.on('exit', () => { answerAll('the hashing thread ended'); });
    this.#worker = worker;
    return worker;
  }
}

async function isAsRecorded(entry: LedgerEntry): Promise<boolean> {
  try {
    const info = await stat(entry.path);
    return info.size === entry.size && Math.trunc(info.mtimeMs) === entry.mtimeMs;
  } catch {
    return false;
  }
}
