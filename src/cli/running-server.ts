import { existsSync, readFileSync } from 'node:fs';
import type { ProjectPaths } from '../config/index.ts';

/** The pid of the `quarry start` serving this project, or undefined when none runs. */
export function runningServerPid(paths: ProjectPaths): number | undefined {
  if (!existsSync(paths.serverPidFile)) return undefined;
  const pid = Number(readFileSync(paths.serverPidFile, 'utf8').trim());
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    process.kill(pid, 0);
    return pid;
  } catch {
    return undefined;
  }
}
