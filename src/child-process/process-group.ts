import type { ChildProcess } from 'node:child_process';

/** Sends `signal` to the child's whole process group (it was spawned detached), so its own children end too. */
export function signalProcessGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

/** Ends a detached child's process group within `deadlineMs`: SIGTERM, then SIGKILL; at once when it already exited. */
export async function stopProcessGroup(child: ChildProcess | null | undefined, deadlineMs: number): Promise<void> {
  await stopChild(child, deadlineMs, (signal) => { if (child) signalProcessGroup(child, signal); });
}

/**
 * Ends a child within `deadlineMs`: SIGTERM, then SIGKILL at the deadline, through `send` (the child
 * alone unless told otherwise); at once when it already exited.
 */
export async function stopChild(
  child: ChildProcess | null | undefined, deadlineMs: number,
  send: (signal: NodeJS.Signals) => void = (signal) => { child?.kill(signal); },
): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => { child.once('exit', () => { resolve(); }); });
  send('SIGTERM');
  const killer = setTimeout(() => { send('SIGKILL'); }, deadlineMs);
  await exited;
  clearTimeout(killer);
}
