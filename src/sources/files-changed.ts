import type { DataRoots } from '../config/index.ts';
import type { LedgerEntry } from '../store/index.ts';
import { listSourceFiles } from './list-source-files.ts';

/**
 * Whether the files a source would load differ from what its last sync recorded: one added, removed, or with another
 * size or modification time. A folder that cannot be listed counts as unchanged: its sync would only fail.
 */
export async function filesChangedSinceLastSync(
  location: { directory: string; pattern: string }, ledger: ReadonlyMap<string, LedgerEntry>, dataRoots: DataRoots,
): Promise<boolean> {
  const listing = await listSourceFiles(location.directory, location.pattern, dataRoots).catch(() => undefined);
  if (listing === undefined) return false;
  const { files } = listing;
  if (files.length !== ledger.size) return true;
  return files.some((file) => {
    const known = ledger.get(file.path);
    return known === undefined || known.size !== file.size || known.mtimeMs !== file.mtimeMs;
  });
}
