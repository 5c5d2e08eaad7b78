import type { AppContext } from '../context.ts';
import { SyncInProgressError, fileSourceLocation } from '../jobs/index.ts';
import { WatcherProcess, watchTargets } from '../watcher/index.ts';

/** Starts the file watcher over the enabled file sources; with auto_sync on, a quiet change starts a sync. */
export function startWatcher(ctx: AppContext): WatcherProcess {
  const watcher = new WatcherProcess({
    targets: watchTargets(ctx.sources, (source) => fileSourceLocation(source, ctx.paths.root)),
    config: ctx.config.watcher,
    log: ctx.log.child({ module: 'watcher' }),
    onSourceChanged: (source) => {
      if (!ctx.config.watcher.auto_sync) return;
      const sync = (): void => {
        try {
          ctx.jobs.startSync(source, { fullRefresh: false, requestedBy: 'watcher' });
        } catch (error) {
          // The running sync may have listed the files before this change: sync again once it is done.
          if (error instanceof SyncInProgressError) void ctx.jobs.idle().then(sync);
          else ctx.log.warn({ source, err: error }, 'the watcher could not start a sync');
        }
      };
      sync();
    },
  });
  watcher.start();
  return watcher;
}
