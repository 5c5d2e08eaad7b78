import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A command line to spawn. */
export interface CommandLine {
  readonly command: string;
  readonly args: readonly string[];
}

/**
 * sh binds each folder given before `--` onto itself read-only, then runs the command after it in a user namespace
 * of its own: mounts inherited into a namespace of another owner are locked, so not even root inside can remount
 * them writable.
 */
const BIND_READ_ONLY = 'while [ "$1" != -- ]; do mount --bind -o ro -- "$1" "$1" || exit 97; shift; done; shift; '
  + 'exec unshare --user --map-root-user --mount -- "$@"';

/** The `unshare` options that work here: root needs only `--mount`; others map themselves to root first. */
const UNSHARE_OPTIONS: readonly (readonly string[])[] = [['--mount'], ['--user', '--map-root-user', '--mount']];

let found: readonly string[] | undefined | null = null;

/** The first `unshare` options under which the whole view works here, tried once on a folder of its own. */
function workingOptions(): readonly string[] | undefined {
  if (found !== null) return found;
  found = undefined;
  const folder = mkdtempSync(path.join(tmpdir(), 'quarry-read-only-probe-'));
  try {
    for (const options of UNSHARE_OPTIONS) {
      const probe = spawnSync('unshare', [...options, '--', 'sh', '-c', BIND_READ_ONLY, 'sh', folder, '--', 'true'], { stdio: 'ignore', timeout: 10_000 });
      if (probe.status === 0) {
        found = options;
        break;
      }
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  return found;
}

/**
 * `line` started so that `folders` are read-only for it and for everything it starts, at the file-system level:
 * a mount namespace of its own in which each folder is bound onto itself read-only, so not even a bug in what it runs
 * can write there, while what the service writes meanwhile shows at once (a folder not there yet is left out: a
 * mount needs one). Undefined where this machine gives no mount namespace (neither root nor user namespaces).
 */
export function inReadOnlyView(folders: readonly string[], line: CommandLine): CommandLine | undefined {
  const options = workingOptions();
  if (options === undefined) return undefined;
  const present = folders.filter((folder) => existsSync(folder));
  return { command: 'unshare', args: [...options, '--', 'sh', '-c', BIND_READ_ONLY, 'sh', ...present, '--', line.command, ...line.args] };
}

/**
 * `line` started to run other people's SQL: its memory capped at `memory` bytes (RLIMIT_DATA, what it allocates, not
 * what it reserves) and `readOnly` read-only where the machine allows (see inReadOnlyView). unshare, sh and prlimit
 * each exec the next, so the process spawned is `line`'s own.
 */
export function confined(line: CommandLine, limits: { readonly memory: number; readonly readOnly: readonly string[] }): CommandLine {
  const capped = { command: 'prlimit', args: [`--data=${String(limits.memory)}`, '--', line.command, ...line.args] };
  return inReadOnlyView(limits.readOnly, capped) ?? capped;
}
