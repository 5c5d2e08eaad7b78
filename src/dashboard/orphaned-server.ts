import { existsSync, readFileSync, readlinkSync, realpathSync, rmSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from '../logger.ts';

/**
 * Ends a gunicorn that a Quarry killed with -9 left running (its process group outlives the parent):
 * it would hold the port and the metadata DB. Only a gunicorn working in this home is touched.
 */
export async function endOrphanedServer(pidFile: string, home: string, log: Logger): Promise<void> {
  const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim()) : Number.NaN;
  if (!Number.isInteger(pid) || pid <= 1) return;
  try {
    if (parentIsLiveQuarry(pid)) {
      log.error({ pid }, 'another Quarry runs this project\'s dashboard tool; stop it before starting this one');
      return;
    }
    rmSync(pidFile, { force: true });
    if (readlinkSync(`/proc/${String(pid)}/cwd`) !== realpathSync(home)) return;
    if (!readFileSync(`/proc/${String(pid)}/cmdline`, 'utf8').includes('gunicorn')) return;
  } catch {
    rmSync(pidFile, { force: true });
    return; // gone already
  }
  log.warn({ pid }, 'ending the dashboard tool a previous Quarry left running');
  for (const [signal, waitMs] of [['SIGTERM', 10_000], ['SIGKILL', 5_000]] as const) {
    try {
      process.kill(-pid, signal);
    } catch {
      return;
    }
    for (const deadline = Date.now() + waitMs; Date.now() < deadline && existsSync(`/proc/${String(pid)}`);) await delay(100);
    if (!existsSync(`/proc/${String(pid)}`)) return;
  }
}

/** Whether the process's parent is a running Quarry (an orphan's parent is init or a subreaper). */
function parentIsLiveQuarry(pid: number): boolean {
  // The command name in /proc/<pid>/stat is in parentheses and may hold spaces: the fields follow the last `)`.
  const stat = readFileSync(`/proc/${String(pid)}/stat`, 'utf8');
  const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  if (!Number.isInteger(parent) || parent <= 1) return false;
  try {
    return readFileSync(`/proc/${String(parent)}/cmdline`, 'utf8').split('\0').some((arg) => arg.endsWith(path.join('src', 'main.ts')));
  } catch {
    return false;
  }
}
