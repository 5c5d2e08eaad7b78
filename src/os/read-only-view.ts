import { spawnSync } from 'node:child_process';

/** A command line to spawn. */
export interface CommandLine {
  readonly command: string;
  readonly args: readonly string[];
}

/** How this machine lets a process have a mount namespace of its own: as root, in a user namespace, or not at all. */
type Unsharing = readonly string[] | undefined;

let unsharing: Unsharing | null = null;

/** The `unshare` options that work here, tried once: root needs none beyond `--mount`; others map themselves to root. */
function unshareOptions(): Unsharing {
  if (unsharing !== null) return unsharing;
  unsharing = undefined;
  for (const options of [['--mount'], ['--user', '--map-root-user', '--mount']]) {
    const probe = spawnSync('unshare', [...options, 'true'], { stdio: 'ignore', timeout: 10_000 });
    if (probe.status === 0) {
      unsharing = options;
      break;
    }
  }
  return unsharing;
}

/**
 * `command` started so that `folders` are read-only for it and for everything it starts: a mount namespace of its
 * own in which each folder is bound onto itself read-only, so not even a bug in what it runs can write there,
 * while what the service writes meanwhile shows at once. Undefined where this machine gives no mount namespace.
 */
export function inReadOnlyView(folders: readonly string[], line: CommandLine): CommandLine | undefined {
  const options = unshareOptions();
  if (options === undefined) return undefined;
  // sh binds each folder given before `--`, then becomes the command after it.
  const script = 'while [ "$1" != -- ]; do mount --bind -o ro -- "$1" "$1" || exit 97; shift; done; shift; exec "$@"';
  return { command: 'unshare', args: [...options, '--', 'sh', '-c', script, 'sh', ...folders, '--', line.command, ...line.args] };
}
