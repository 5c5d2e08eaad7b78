import { existsSync, readFileSync } from 'node:fs';

/**
 * A process as the kernel knows it: its id and when it started (clock ticks since boot, from /proc), so a process
 * id the kernel has since given to another process is not taken for the one recorded.
 */
export interface ProcessIdentity {
  readonly pid: number;
  /** Its start time from /proc/<pid>/stat; '' where the machine has no /proc. */
  readonly started: string;
}

const HAS_PROC = existsSync('/proc/self/stat');

/** This process. */
export function thisProcess(): ProcessIdentity {
  return { pid: process.pid, started: HAS_PROC ? startTimeOf(process.pid) ?? '' : '' };
}

/** Whether the recorded process still runs (an ended one not yet reaped does not): same id and start time. */
export function isRunning(identity: ProcessIdentity): boolean {
  if (HAS_PROC) {
    const started = startTimeOf(identity.pid);
    return started !== undefined && (identity.started === '' || started === identity.started);
  }
  try {
    process.kill(identity.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // it runs, as another user
  }
}

/** Field 22 of /proc/<pid>/stat; undefined for a process that is gone or has ended (a zombie). */
function startTimeOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${String(pid)}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: the fields after it start past its last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const state = fields[0];
    return state === 'Z' || state === 'X' ? undefined : fields[19];
  } catch {
    return undefined;
  }
}
