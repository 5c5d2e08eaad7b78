/**
 * The query process: users' SQL runs here, on readers of its own, so a query that makes DuckDB build values
 * outside its memory limit meets this process's cap (query-process.ts) and fails alone, or takes down only this
 * process, never the service. Started by QueryProcess, it reads the lake given in the first message and answers
 * each query in batches, reading ahead of what the service has taken by BATCHES_AHEAD at most.
 */
import { describeError, firstLineOf, QuarryError } from '../errors.ts';
import type { Json } from '@duckdb/node-api';
import type { FromQueryProcess, ToQueryProcess } from './query-process-messages.ts';
import { AnswerTooLargeError, queryTimedOut, WarehouseReaders, type QueryColumn } from './read-query.ts';

/**
 * How many batches a query reads ahead of what the service has taken: a small answer takes one round trip, and a
 * slow download keeps at most this many batches (about a megabyte each) waiting in the service.
 */
const BATCHES_AHEAD = 2;

/** A running query: its cancel switch, the batches sent and not yet taken, and who waits for one to be. */
interface RunningQuery {
  readonly cancel: AbortController;
  untaken: number;
  taken?: (() => void) | undefined;
}

let readers: WarehouseReaders | undefined;
const running = new Map<number, RunningQuery>();

function send(message: FromQueryProcess): void {
  process.send?.(message);
}

async function answer(message: Extract<ToQueryProcess, { kind: 'query' }>, queryReaders: WarehouseReaders): Promise<void> {
  const { id, sql, maxRows, maxCharacters, timeoutMs } = message;
  const cancel = new AbortController();
  const entry: RunningQuery = { cancel, untaken: 0 };
  running.set(id, entry);
  send({ kind: 'accepted', id });
  try {
    await queryReaders.withQuery(sql, { maxRows, maxCharacters, timeoutMs, signal: cancel.signal }, async (result) => {
      result.timeUp.addEventListener('abort', () => { send({ kind: 'timeUp', id }); }, { once: true });
      const stopped = new Promise<void>((resolve) => {
        for (const signal of [cancel.signal, result.timeUp]) signal.addEventListener('abort', () => { resolve(); }, { once: true });
      });
      // Each batch is sent once the next is read (or known not to come), so the last part says it is the last.
      let columns: readonly QueryColumn[] | undefined = result.columns;
      let held: Json[][] | undefined;
      for await (const rows of result.batches()) {
        if (held !== undefined) {
          send({ kind: 'part', id, columns, rows: held });
          columns = undefined;
          entry.untaken += 1;
          while (entry.untaken >= BATCHES_AHEAD) {
            await Promise.race([new Promise<void>((resolve) => { entry.taken = resolve; }), stopped]);
            if (result.timeUp.aborted) throw queryTimedOut(timeoutMs);
            cancel.signal.throwIfAborted();
          }
        }
        held = rows;
      }
      send({ kind: 'part', id, columns, rows: held ?? [], end: { truncated: result.truncated() } });
    });
  } catch (error) {
    // Sent when cancelled too: the service may be waiting for the query's end.
    const failure = error instanceof QuarryError ? error : undefined;
    send({
      kind: 'failed', id, code: failure?.code ?? 'query_failed', message: failure?.message ?? firstLineOf(error),
      columns: error instanceof AnswerTooLargeError ? error.columns : undefined,
    });
  } finally {
    running.delete(id);
  }
}

process.on('message', (message: ToQueryProcess) => {
  switch (message.kind) {
    case 'open':
      readers ??= new WarehouseReaders(message.lake);
      break;
    case 'query':
      if (readers === undefined) send({ kind: 'failed', id: message.id, code: 'query_failed', message: 'The query process has no lake to read' });
      else void answer(message, readers);
      break;
    case 'next': {
      const query = running.get(message.id);
      if (query === undefined) break;
      query.untaken -= 1;
      query.taken?.();
      break;
    }
    case 'cancel':
      running.get(message.id)?.cancel.abort();
      break;
  }
});

// The service is this process's only reason to live: without it, nobody reads the answers.
process.on('disconnect', () => {
  readers?.close();
  process.exit(0);
});

process.on('uncaughtException', (error) => {
  process.stderr.write(`query process: ${describeError(error)}\n`);
  process.exit(1);
});
