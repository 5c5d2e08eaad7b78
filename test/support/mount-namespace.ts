import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** What `touch` says when it tries to create `file` as seen from the mount namespace of process `pid`. */
export async function touchAsSeenBy(pid: string, file: string): Promise<string> {
  try {
    await run('nsenter', ['--target', pid, '--mount', '--', 'touch', file]);
    return 'created';
  } catch (error) {
    return String((error as { stderr?: unknown }).stderr ?? error);
  }
}

/** The names in `folder` as seen from the mount namespace of process `pid`. */
export async function listAsSeenBy(pid: string, folder: string): Promise<string[]> {
  const { stdout } = await run('nsenter', ['--target', pid, '--mount', '--', 'ls', '-A', folder]);
  return stdout.split('\n').filter((name) => name !== '').sort();
}
