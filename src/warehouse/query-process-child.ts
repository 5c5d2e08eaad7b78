/**
 * The query process: users' SQL runs here, on readers of its own, so a query that makes DuckDB build values
 * outside its memory limit meets this process's cap (query-process.ts) and fails alone, or takes down only this
 * process, never the service. Started by QueryProcess, it reads the lake given in the first message and answers
 * each query in batches, reading the next only once the service has taken the last.
 */
import { describeError, firstLineOf, QuarryError } from '../errors.ts';
import type { FromQueryProcess, ToQueryProcess } from './query-process-messages.ts';
import { AnswerTooLargeError, queryTimedOut, WarehouseReaders } from './read-query.ts';

let readers: WarehouseReaders | undefined;
/** Per running query: its cancel switch, and who waits for the service to take the last batch. */
const running = new Map<number, { readonly cancel: AbortController; taken?: () => void }>();

function send(message: FromQueryProcess): void {
  process.send?.(message);
}

async function answer(message: Extract<ToQueryProcess, { kind: 'query' }>, queryReaders: WarehouseReaders): Promise<void> {
  const { id, sql, maxRows, maxCharacters, timeoutMs } = message;
  const cancel = new AbortController();
  const entry: { readonly cancel: AbortController; taken?: () => void } = { cancel };
  running.set(id, entry);
  try {
    const truncated = await queryReaders.withQuery(sql, { maxRows, maxCharacters, timeoutMs, signal: cancel.signal }, async (result) => {
      send({ kind: 'columns', id, columns: result.columns });
      const stopped = new Promise<void>((resolve) => {
        for (const signal of [cancel.signal, result.timeUp]) signal.addEventListener('abort', () => { resolve(); }, { once: true });
      });
      for await (const rows of result.batches()) {
        const taken = new Promise<void>((resolve) => { entry.taken = resolve; });
        send({ kind: 'batch', id, rows });
        await Promise.race([taken, stopped]);
        if (result.timeUp.aborted) throw queryTimedOut(timeoutMs);
        cancel.signal.throwIfAborted();
      }
      return result.truncated();
    });
    send({ kind: 'end', id, truncated });
  } catch (error) {
    if (cancel.signal.aborted) return; // the service stopped waiting for it
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
    case 'next':
      running.get(message.id)?.taken?.();
      break;
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
