import { randomBytes } from 'node:crypto';
import { closeSync, constants, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { describeError } from '../errors.ts';
import type { LakeLocation } from './lake-location.ts';

const WRITING = 'writing ';
const SETTLED = 'settled ';

/** Writers running in this process, by marker file. */
const runningWriters = new Map<string, number>();

/**
 * Marks the lake as being written while `work` runs, so no reader trusts a snapshot it took before (see
 * settledToken); calls nested or side by side in one process mark it once. Writers of several processes must not
 * overlap (the one writer's lock between processes sees to it): one settling would hide the other's later commits.
 * If the mark cannot be written, nothing is: a reader could otherwise go on reading a snapshot the work makes old.
 */
export async function whileWriting<T>(lake: LakeLocation, work: () => Promise<T>): Promise<T> {
  const file = markerFile(lake);
  if (file === undefined) return work();
  const running = runningWriters.get(file) ?? 0;
  if (running === 0) {
    try {
      mkdirSync(path.dirname(file), { recursive: true });
      writeMark(file, `${WRITING}${newToken()}`);
    } catch (error) {
      throw new Error(`Could not tell the warehouse's readers that it is being written (${file}): ${describeError(error)}`);
    }
  }
  runningWriters.set(file, running + 1);
  try {
    return await work();
  } finally {
    const left = (runningWriters.get(file) ?? 1) - 1;
    if (left > 0) {
      runningWriters.set(file, left);
    } else {
      runningWriters.delete(file);
      // Left at `writing`, the mark only stops readers reusing their snapshots until the next writer settles it.
      try {
        writeMark(file, `${SETTLED}${newToken()}`);
      } catch { /* see above */ }
    }
  }
}

/**
 * The token of the lake's last settled write, while no writer of this host runs: a reader that saw it before its
 * transaction's first read, and sees it still, knows nothing was committed since, so that transaction's snapshot is
 * still the latest. Undefined while a writer runs (or died running), when the mark cannot be read, and for a
 * PostgreSQL catalog, which other hosts write without telling this one.
 */
export function settledToken(lake: LakeLocation): string | undefined {
  const file = markerFile(lake);
  if (file === undefined) return undefined;
  try {
    const mark = readFileSync(file, 'latin1');
    return mark.startsWith(SETTLED) ? mark : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The embedded catalog's `.writes` file beside it, rewritten with a new random token by every writer as it
 * starts and once it has ended: a token never comes back, even in a catalog deleted and made again.
 */
function markerFile(lake: LakeLocation): string | undefined {
  return lake.catalog.kind === 'sqlite' ? `${lake.catalog.file}.writes` : undefined;
}

/**
 * Overwrites the mark in place: every mark has the same length, and rewriting a file truncated to nothing makes
 * ext4 flush it at close (auto_da_alloc), milliseconds on the event loop.
 */
function writeMark(file: string, mark: string): void {
  const descriptor = openSync(file, constants.O_WRONLY | constants.O_CREAT);
  try {
    writeSync(descriptor, mark, 0, 'latin1');
  } finally {
    closeSync(descriptor);
  }
}

/** 24 hex digits, so `writing ` and `settled ` marks are all 32 characters long. */
function newToken(): string {
  return randomBytes(12).toString('hex');
}
