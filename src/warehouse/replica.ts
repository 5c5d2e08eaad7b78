import { existsSync } from 'node:fs';
import { chmod, copyFile, mkdir, open, readdir, readlink, rename, rm, symlink } from 'node:fs/promises';
import path from 'node:path';
import { firstLineOf } from '../errors.ts';
import { withSandboxedReader } from './sandboxed-reader.ts';

// Readers never write a published version: its file and folder are read-only to every process. Root
// ignores modes, so this is the second wall; the reader sandbox (no file system at all) is the first.
const READ_ONLY_FILE = 0o444;
const READ_ONLY_FOLDER = 0o555;

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
  await chmod(target, READ_ONLY_FILE);
  await chmod(versionDir, READ_ONLY_FOLDER);
  await swapSymlink(path.join(servingDir, 'current'), `v${String(next)}`);
  await swapSymlink(path.join(servingDir, 'warehouse.duckdb'), path.join('current', 'warehouse.duckdb'));
  for (const old of versions.slice(0, -1)) await removeVersion(path.join(servingDir, `v${String(old)}`));
  return target;
}

async function removeVersion(versionDir: string): Promise<void> {
  await chmod(versionDir, 0o755).catch(() => undefined); // already gone, or left writable by an older Quarry
  await rm(versionDir, { recursive: true, force: true });
}

/**
 * Why the published replica cannot be read through the reader sandbox (overwritten, truncated, not a
 * database), or undefined when it can, or when nothing has been published yet.
 */
export async function replicaProblem(servingDir: string): Promise<string | undefined> {
  const replica = path.join(servingDir, 'warehouse.duckdb');
  if (!existsSync(replica)) return undefined;
  try {
    await withSandboxedReader(replica, (connection) => connection.run("SELECT count(*) FROM duckdb_tables() WHERE database_name = 'warehouse'"));
    return undefined;
  } catch (error) {
    return firstLineOf(error);
  }
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
