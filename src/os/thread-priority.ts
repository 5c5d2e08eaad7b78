import { readlinkSync } from 'node:fs';
import os from 'node:os';

/** The nice value of background work (a job's DuckDB threads, file hashing): under contention a reader gets ~10 times its CPU share. */
const BACKGROUND_NICENESS = 10;

/** Lowers one thread's priority (on Linux each thread has its own nice value); a thread that has ended is left alone. */
export function lowerThreadPriority(thread: number): void {
  try {
    os.setPriority(thread, BACKGROUND_NICENESS);
  } catch {
    // the thread has ended meanwhile, or this system has no per-thread priorities
  }
}

/** The calling thread's id, or undefined where /proc does not tell it. */
export function currentThreadId(): number | undefined {
  try {
    return Number(readlinkSync('/proc/thread-self').split('/').at(-1));
  } catch {
    return undefined;
  }
}
