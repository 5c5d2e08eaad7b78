import { existsSync } from 'node:fs';
import { chmod, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { ProjectPaths } from '../config/index.ts';
import type { Logger } from '../logger.ts';
import { convertLegacyWarehouse } from './legacy-conversion.ts';
import type { LakeWriter } from './lake-writer.ts';
import { WarehouseBusyError } from './writer-lock-file.ts';

/** What the converted single-file warehouse is renamed to, kept until the next successful start. */
const KEPT_SUFFIX = '.converted';

export interface WarehouseUpgrade {
  /** Removes the converted file an earlier start kept; call once this start has succeeded. */
  afterSuccessfulStart(): Promise<void>;
}

/**
 * Makes the project's lake at start when it has none (so dbt, which attaches it too, finds it made as
 * Quarry makes it), and converts a warehouse.duckdb from before the lake: every table is copied into
 * the lake in one transaction (one snapshot) and its row count checked, the views are made again, the
 * old file is renamed `warehouse.duckdb.converted` (removed after the next successful start) and the
 * old serving/ replicas are removed. Making and converting the lake are writes of the lake's writer.
 */
export async function prepareWarehouse(paths: ProjectPaths, writer: LakeWriter, log: Logger, signal: AbortSignal): Promise<WarehouseUpgrade> {
  const kept = `${paths.legacyWarehouseFile}${KEPT_SUFFIX}`;
  const keptBefore = existsSync(kept);
  if (!existsSync(paths.legacyWarehouseFile)) {
    await openOnce(writer, log, signal);
  } else {
    await writer.write((write) => convertLegacyWarehouse(write, paths, log), { signal });
    await rename(paths.legacyWarehouseFile, kept);
    await rm(`${paths.legacyWarehouseFile}.wal`, { force: true });
    log.info({ file: kept }, 'the old warehouse file is kept until the next successful start');
  }
  await removeServingReplicas(path.join(paths.warehouseDir, 'serving'));
  return {
    afterSuccessfulStart: async () => {
      if (!keptBefore) return;
      await rm(kept, { force: true });
      log.info({ file: kept }, 'removed the warehouse file converted into the lake by an earlier start');
    },
  };
}

/**
 * Opens the lake as its writer once, which makes it when missing and points it at its data folder
 * when the project moved. A `quarry sync` in another process holding it has done the same.
 */
async function openOnce(writer: LakeWriter, log: Logger, signal: AbortSignal): Promise<void> {
  try {
    await writer.write(() => Promise.resolve(), { signal });
  } catch (error) {
    if (!(error instanceof WarehouseBusyError)) throw error;
    log.info('another process is writing the warehouse; it opened the lake itself');
  }
}

/** The replicas of the single-file design (serving/v<N>/ are read-only folders). */
async function removeServingReplicas(servingDir: string): Promise<void> {
  if (!existsSync(servingDir)) return;
  for (const entry of await readdir(servingDir)) await chmod(path.join(servingDir, entry), 0o755).catch(() => undefined);
  await rm(servingDir, { recursive: true, force: true });
}
