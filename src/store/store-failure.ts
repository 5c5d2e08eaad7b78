const SQLITE_BUSY = 5;
const SQLITE_LOCKED = 6;
const SQLITE_READONLY = 8;
const SQLITE_IOERR = 10;
/**
 * The I/O errors of writing (IOERR_WRITE, _FSYNC, _DIR_FSYNC, _TRUNCATE, _DELETE). SQLite keeps its files
 * open, so a file or file system that turns read-only under it (`chattr +i`, an ext4 error remount) shows up
 * as these, not as SQLITE_READONLY, which only a connection opened read-only or a moved file gives.
 */
const WRITE_IO_ERRORS = new Set([3, 4, 5, 6, 10].map((extended) => SQLITE_IOERR | (extended << 8)));

/** PostgreSQL's SQLSTATEs of a database that refuses writes for now: a hot standby, a read-only transaction, a full disk. */
const POSTGRES_READ_ONLY = new Set(['25006', '53100']);
/** Lock timeouts, deadlocks and serialization failures: the same statement may pass a moment later. */
const POSTGRES_BUSY = new Set(['55P03', '40P01', '40001']);
/** The connection could not be made or was cut: the server is down, restarting, or out of connections. */
const POSTGRES_UNAVAILABLE = /^(08|57P0|53300)/;
const NETWORK_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE']);

export type StoreFailure = 'busy' | 'read_only' | 'unavailable';

/**
 * Why the platform store refused a statement, when that is a state of the store rather than a bug: `busy` while
 * another process holds its lock, `read_only` while it cannot be written (reads still work), `unavailable` while a
 * PostgreSQL store cannot be reached.
 */
export function storeFailure(error: unknown): StoreFailure | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, errcode } = error as { code?: unknown; errcode?: unknown };
  if (typeof code === 'string' && code !== 'ERR_SQLITE_ERROR') return postgresFailure(code, error);
  if (code !== 'ERR_SQLITE_ERROR' || typeof errcode !== 'number') return undefined;
  const primary = errcode & 0xff;
  if (primary === SQLITE_BUSY || primary === SQLITE_LOCKED) return 'busy';
  if (primary === SQLITE_READONLY || WRITE_IO_ERRORS.has(errcode)) return 'read_only';
  return undefined;
}

function postgresFailure(code: string, error: object): StoreFailure | undefined {
  if (POSTGRES_READ_ONLY.has(code)) return 'read_only';
  if (POSTGRES_BUSY.has(code)) return 'busy';
  if (POSTGRES_UNAVAILABLE.test(code) || NETWORK_ERRORS.has(code)) return 'unavailable';
  // The driver's own words for a connection that ended under a query or never came.
  const message = error instanceof Error ? error.message : '';
  if (/Connection terminated|timeout exceeded when trying to connect/.test(message)) return 'unavailable';
  return undefined;
}
