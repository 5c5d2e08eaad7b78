import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { isMissingFile } from '../config/index.ts';
import { SharedRuns } from '../shared-runs.ts';
import { catalogMissing, dataInBucket, lakeMetadataSchema, withSandboxedReader, type LakeLocation } from '../warehouse/index.ts';

/**
 * How old a reported size may be. Measuring walks every file of the lake: about 0.2 s, and one thread-pool trip
 * per file, for 5,000 files, which each health request would otherwise pay.
 */
const MEASURED_SIZE_MAX_AGE_MS = 60_000;

interface Measurement {
  readonly bytes: number;
  readonly at: number;
}

/** By the lake's data folder: the last measurement, and the one running. */
const measurements = new Map<string, Measurement>();
const measuring = new SharedRuns<string, number | null>();

/**
 * The lake's size in bytes (its catalog and data files; a PostgreSQL catalog's tables are not counted), or null
 * before the lake was made. A measurement older than a minute is answered at once and taken again behind it;
 * the first is waited for.
 */
export async function warehouseSize(lake: LakeLocation): Promise<number | null> {
  const last = measurements.get(lake.dataPath);
  if (last !== undefined && Date.now() - last.at < MEASURED_SIZE_MAX_AGE_MS) return last.bytes;
  const running = measuring.run(lake.dataPath, () => measureAgain(lake));
  if (last === undefined) return running;
  running.catch(() => undefined); // the next request waits for a measurement again, and sees its error
  return last.bytes;
}

function measureAgain(lake: LakeLocation): Promise<number | null> {
  return measure(lake).then((bytes) => {
    // No lake yet is not remembered: the first sync makes one.
    if (bytes === null) measurements.delete(lake.dataPath);
    else measurements.set(lake.dataPath, { bytes, at: Date.now() });
    return bytes;
  }, (error: unknown) => {
    measurements.delete(lake.dataPath);
    throw error;
  });
}

async function measure(lake: LakeLocation): Promise<number | null> {
  try {
    const catalogBytes = lake.catalog.kind === 'sqlite' ? (await stat(lake.catalog.file)).size : 0;
    return catalogBytes + await (dataInBucket(lake) ? namedFilesSize(lake) : folderSize(lake.dataPath));
  } catch (error) {
    if (isMissingFile(error)) return null;
    throw error;
  }
}

/** What the catalog records of the bucket's data and delete files: listing a bucket costs a request per thousand keys. */
async function namedFilesSize(lake: LakeLocation): Promise<number> {
  if (catalogMissing(lake)) return 0;
  const metadata = lakeMetadataSchema(lake);
  return withSandboxedReader(lake, async (connection) => {
    const reader = await connection.runAndReadAll(`SELECT (SELECT coalesce(sum(file_size_bytes), 0) FROM ${metadata}.ducklake_data_file)
      + (SELECT coalesce(sum(file_size_bytes), 0) FROM ${metadata}.ducklake_delete_file)`);
    return Number(reader.getRows()[0]?.[0] ?? 0);
  });
}

async function folderSize(folder: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(folder, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += (await stat(path.join(entry.parentPath, entry.name))).size;
  }
  return total;
}
