import { storeFailure } from '../store/index.ts';

/**
 * Runs a write that only keeps records (a session's last-seen time, an API key's last use) so that a
 * platform database that is read-only or locked does not turn every signed-in read into an error; any
 * other failure is thrown. The record catches up with the next request once the database takes writes.
 * Resolves to whether the write was made.
 */
export async function bookkeepingWrite(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (error) {
    if (storeFailure(error) === undefined) throw error;
    return false;
  }
}
