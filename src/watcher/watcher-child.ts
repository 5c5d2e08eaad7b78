// The watcher process: watches the file sources' directories and tells its parent, over IPC, which source changed.
import path from 'node:path';
import { watch } from 'chokidar';
import { describeError } from '../errors.ts';

interface WatchTarget {
  readonly source: string;
  readonly directory: string;
  readonly pattern: string;
}

const targets = JSON.parse(process.argv[2] ?? '[]') as WatchTarget[];
const patterns = JSON.parse(process.argv[3] ?? '[]') as string[];

function sourceOf(file: string): string | undefined {
  for (const target of targets) {
    const relative = path.relative(target.directory, file);
    if (relative.startsWith('..') || path.isAbsolute(relative)) continue;
    const name = path.basename(file);
    if (name.startsWith('.')) continue;
    if (!path.matchesGlob(relative, target.pattern)) continue;
    if (patterns.length > 0 && !patterns.some((pattern) => path.matchesGlob(name, pattern))) continue;
    return target.source;
  }
  return undefined;
}

const watcher = watch(targets.map((target) => target.directory), {
  ignoreInitial: true,
  awaitWriteFinish: { stabilityThreshold: 300, pollInterval: 100 },
});

for (const event of ['add', 'change', 'unlink'] as const) {
  watcher.on(event, (file: string) => {
    const source = sourceOf(file);
    if (source !== undefined) process.send?.({ type: 'changed', source, file, event });
  });
}
watcher.on('ready', () => { process.send?.({ type: 'ready' }); });
watcher.on('error', (error) => { process.send?.({ type: 'error', message: describeError(error) }); });

process.on('disconnect', () => {
  void watcher.close().then(() => { process.exit(0); });
});
