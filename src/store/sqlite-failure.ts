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

/**
 * Why the platform database refused a statement, when that is a state of the database rather than a bug:
 * `busy` while another process holds its lock, `read_only` while its files cannot be written. Reads work in both.
 */
export function sqliteFailure(error: unknown): 'busy' | 'read_only' | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, errcode } = error as { code?: unknown; errcode?: unknown };
  if (code !== 'ERR_SQLITE_ERROR' || typeof errcode !== 'number') return undefined;
  const primary = errcode & 0xff;
  if (primary === SQLITE_BUSY || primary === SQLITE_LOCKED) return 'busy';
  if (primary === SQLITE_READONLY || WRITE_IO_ERRORS.has(errcode)) return 'read_only';
  return undefined;
}
