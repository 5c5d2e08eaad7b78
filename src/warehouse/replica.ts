import { copyFile, mkdir, open, readdir, readlink, rename, rm, symlink } from 'node:fs/promises';
import path from 'node:path';

/**
 * Publishes a read-only copy of the (closed) warehouse as serving/v<N>/warehouse.duckdb and swaps the
 * symlink serving/current to it atomically; serving/warehouse.duckdb points through current. A reader
 * that opened an older version keeps its file; versions older than the previous one are removed.
 */
export async function publishReplica(warehouseFile: string, servingDir: string): Promise<string> {
  await mkdir(servingDir, { recursive: true });
  const versions = await listVersions(servingDir);
  const next = (versions.at(-1) ?? 0) + 1;
  const versionDir = path.join(servingDir, `v${String(next)}`);
  await mkdir(versionDir, { recursive: true });
  const target = path.join(versionDir, 'warehouse.duckdb');
  await copyFile(warehouseFile, target);
  const handle = await open(target, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
  await swapSymlink(path.join(servingDir, 'current'), `v${String(next)}`);
  await swapSymlink(path.join(servingDir, 'warehouse.duckdb'), path.join('current', 'warehouse.duckdb'));
  for (const old of versions.slice(0, -1)) await rm(path.join(servingDir, `v${String(old)}`), { recursive: true, force: true });
  return target;
}

async function swapSymlink(link: string, target: string): Promise<void> {
  try {
    if (await readlink(link) === target) return;
  } catch {
    // no link yet
  }
  const temporary = `${link}.${String(process.pid)}.tmp`;
  await rm(temporary, { force: true });
  await symlink(target, temporary);
  await rename(temporary, link);
}

async function listVersions(servingDir: string): Promise<number[]> {
  const entries = await readdir(servingDir);
  return entries.map((name) => /^v(\d+)$/.exec(name)?.[1]).filter((value) => value !== undefined).map(Number).sort((a, b) => a - b);
}
