import { parentPort } from 'node:worker_threads';
import { currentThreadId, lowerThreadPriority } from '../os/index.ts';
import { hashFile } from './list-source-files.ts';

/** A hash request from the LedgerHasher and its answer. */
export interface HashRequest { readonly id: number; readonly file: string }
export type HashAnswer = { readonly id: number; readonly sha256: string } | { readonly id: number; readonly error: string };

const thread = currentThreadId();
if (thread !== undefined) lowerThreadPriority(thread);

parentPort?.on('message', (request: HashRequest) => {
  hashFile(request.file).then(
    (sha256) => { parentPort?.postMessage({ id: request.id, sha256 } satisfies HashAnswer); },
    (error: unknown) => { parentPort?.postMessage({ id: request.id, error: String(error) } satisfies HashAnswer); },
  );
});
