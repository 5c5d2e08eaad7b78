import type { AppContext } from '../context.ts';
import { SyncInProgressError, fileSourceLocation } from '../jobs/index.ts';
import { filesChangedSinceLastSync } from '../sources/index.ts';
import { WatcherProcess, watchTargets, type WatchTarget } from '../watcher/index.ts';

/**
 * Starts the file watcher over the enabled file sources. With auto_sync on, a quiet change starts a sync, and so
 * do files that changed while the service was stopped (a first start of a project with files to load among them).
 */
export async function startWatcher(ctx: AppContext): Promise<WatcherProcess> {
  const targets = watchTargets(ctx.sources, (source) => fileSourceLocation(source, ctx.paths.root));
  const watcher = new WatcherProcess({
    targets,
    config: ctx.config.watcher,
    log: ctx.log.child({ module: 'watcher' }),
    onSourceChanged: (source) => {
      if (ctx.config.watcher.auto_sync) void syncWhenFree(ctx, source, 'watcher');
    },
  });
  watcher.start();
  if (ctx.config.watcher.auto_sync) {
    await syncChangedWhileStopped(ctx, targets).catch((error: unknown) => {
      ctx.log.warn({ err: error }, 'could not compare the watched files with their last sync');
    });
  }
  return watcher;
}

async function syncChangedWhileStopped(ctx: AppContext, targets: readonly WatchTarget[]): Promise<void> {
  for (const target of targets) {
    const ledger = await ctx.store.fileLedger.forSource(target.source);
    if (!await filesChangedSinceLastSync(target, ledger, ctx.dataRoots)) continue;
    ctx.log.info({ source: target.source }, 'files changed while Quarry was stopped; syncing');
    await syncWhenFree(ctx, target.source, 'watcher');
  }
}

/** Queues a sync of `source`, or another once the running one ends; never rejects. */
async function syncWhenFree(ctx: AppContext, source: string, requestedBy: string): Promise<void> {
  try {
    await ctx.jobs.startSync(source, { fullRefresh: false, requestedBy });
  } catch (error) {
    // The running sync may have listed the files before this change: sync again once it is done.
    if (error instanceof SyncInProgressError) void ctx.jobs.idle().then(() => syncWhenFree(ctx, source, requestedBy));
    else ctx.log.warn({ source, err: error }, 'the watcher could not start a sync');
  }
}
