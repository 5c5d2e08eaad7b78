import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Connector, ConnectorLogLevel, CursorState, RecordSink, TableSpec, TableWriter } from './connector.ts';
import { loadStagedTables, rawTablesOf } from './load-staged-tables.ts';
import type { LoadMessage, SourceLoader, SyncProgress } from './source-loader.ts';
import { SMALL_FILE_BYTES } from './read-files-alone.ts';
import { StagingArea, type StagedTable } from './staging-area.ts';
import { firstLineOf } from '../errors.ts';

/**
 * The loader of a type read through a connector: it extracts outside the writer's turn (a slow API must not
 * hold up other loads) into a staging area, then loads every staged table in one transaction.
 */
export function extractThenLoad(connector: Connector): SourceLoader {
  return {
    lockScope: 'load',
    fileLocation: () => undefined,
    objectsPrefix: () => undefined,
    unsupportedReason: () => undefined,
    async load(context) {
      const { window } = context;
      // A backfill starts from its window, not from where the last sync stopped, and leaves the saved cursors as they are.
      const saved = window === undefined ? await context.savedCursors() : new Map<string, unknown>();
      const cursors = new Map<string, unknown>();
      const state: CursorState = {
        get: (resource) => saved.get(resource),
        set: (resource, value) => { cursors.set(resource, value); },
      };
      const afterCommit: (() => Promise<void>)[] = [];
      const staging = await StagingArea.create(context.runDir, context.jobId);
      if (window !== undefined) context.log('INFO', `Backfill of ${window.since} to ${window.until}: rows of those days are re-loaded and merged, the rest stay as they are`);
      try {
        await connector.extract({
          source: context.source, env: context.env, state, fullRefresh: context.fullRefresh, window, now: context.now(), signal: context.signal,
          workDir: staging.directory, projectDir: context.projectDir, log: context.log, oauthAccessToken: context.oauthAccessToken,
          outbound: context.outbound, onCommitted: (work) => { afterCommit.push(work); },
        }, countingSink(window === undefined ? staging : windowSink(staging, context.log), context.progress));
        const staged = await staging.finish();
        // A small load gains nothing from DuckDB's threads, which only take the cores from the jobs beside it.
        const threads = await stagedBytes(staged) <= SMALL_FILE_BYTES ? 1 : undefined;
        const loaded = await context.write(({ transaction }) => transaction(async (connection) => {
          const outcome = await loadStagedTables(connection, context.source.name, staged, { fullRefresh: context.fullRefresh, now: context.now(), window });
          context.signal.throwIfAborted();
          // A backfill loads some of the source's tables; the source still has all of them.
          return window === undefined ? outcome : { ...outcome, tables: await rawTablesOf(connection, context.source.name) };
        }), { threads });
        // After the write: the data is committed, and a slow vendor must not hold up other loads.
        const committed = await runAfterCommit(afterCommit);
        return {
          rows: loaded.rowsLoaded, tables: loaded.tables, messages: [...loaded.messages, ...committed],
          ...(window === undefined ? { cursors } : {}),
        };
      } finally {
        await staging.remove();
      }
    },
    async probe(context) {
      const scratch = path.join(context.runDir, 'staging');
      await mkdir(scratch, { recursive: true });
      const workDir = await mkdtemp(path.join(scratch, 'test-'));
      const probe = probeSink();
      try {
        await connector.extract({
          source: context.source, env: context.env, state: { get: () => undefined, set: () => undefined }, fullRefresh: false,
          now: context.now(), signal: context.signal, workDir, projectDir: context.projectDir, log: () => undefined,
          oauthAccessToken: context.oauthAccessToken, outbound: context.outbound, onCommitted: () => undefined,
        }, probe.sink);
        return 'Connected; the source has no records yet';
      } catch (error) {
        // Some connectors wrap whatever their reader throws, the probe's stop included: the flag says what happened.
        if (probe.reached()) return 'Connected and read the first records';
        throw error;
      } finally {
        await rm(workDir, { recursive: true, force: true });
      }
    },
  } satisfies SourceLoader;
}

/** Whether a backfill can re-load a window of this table without touching its other rows: merged on a key, or replaced by day. */
function isWindowable(spec: TableSpec): boolean {
  return spec.disposition === 'merge' || (spec.disposition === 'replace' && spec.windowColumn !== undefined);
}

/** The sink of a backfill: tables it cannot re-load by window (replaced whole, appended to) are left as they are. */
function windowSink(sink: RecordSink, log: (level: ConnectorLogLevel, message: string) => void): RecordSink {
  const skipped = new Set<string>();
  const ignored: TableWriter = { write: async () => undefined, addFile: () => undefined };
  return {
    table(spec) {
      if (isWindowable(spec)) return sink.table(spec);
      if (!skipped.has(spec.name)) {
        skipped.add(spec.name);
        log('INFO', `Backfill leaves ${spec.name} as it is: its rows have no key or day to re-load a window by`);
      }
      return ignored;
    },
  };
}

/** A sink that tells, after each batch written, how many records and batches the extraction has read so far. */
function countingSink(sink: RecordSink, progress: (done: SyncProgress) => void): RecordSink {
  let rows = 0;
  let pages = 0;
  return {
    table(spec) {
      const writer = sink.table(spec);
      return {
        write: async (records) => {
          await writer.write(records);
          rows += records.length;
          pages += 1;
          progress({ rows, pages });
        },
        addFile: (file) => { writer.addFile(file); },
      };
    },
  };
}

/** Runs what connectors asked to do once their data is committed; the data stays loaded whatever happens here. */
async function runAfterCommit(work: readonly (() => Promise<void>)[]): Promise<LoadMessage[]> {
  const messages: LoadMessage[] = [];
  for (const step of work) {
    try {
      await step();
    } catch (error) {
      messages.push({ level: 'WARNING', message: `After the data was committed: ${firstLineOf(error)}` });
    }
  }
  return messages;
}

/** Thrown by the probe sink at the first record: the connection works, nothing more is fetched. */
class FirstRecordReached extends Error {}

/** A sink that stops the extraction at the first record, remembering that it got that far. */
function probeSink(): { sink: RecordSink; reached: () => boolean } {
  let reached = false;
  const stop = (): never => {
    reached = true;
    throw new FirstRecordReached();
  };
  return {
    sink: {
      table: () => ({
        write: async (records) => { if (records.length > 0) stop(); },
        addFile: stop,
      }),
    },
    reached: () => reached,
  };
}

/** The bytes of every file staged for a load. */
async function stagedBytes(staged: readonly StagedTable[]): Promise<number> {
  const sizes = await Promise.all(staged.flatMap((table) => table.files.map(async (file) => (await stat(file.path)).size)));
  return sizes.reduce((total, size) => total + size, 0);
}
