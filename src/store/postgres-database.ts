import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import type { PlatformDatabase, SqlValue } from './platform-database.ts';

/** int8 (ids, counts) and numeric (sums): whole numbers far below 2^53 here, read as numbers as SQLite gives them. */
const AS_NUMBER = new Set<number>([pg.types.builtins.INT8, pg.types.builtins.NUMERIC]);
const NUMBER_TYPES: pg.CustomTypesConfig = {
  getTypeParser: (oid, format) => (AS_NUMBER.has(oid) ? Number : pg.types.getTypeParser(oid, format)) as unknown,
};

/**
 * The platform database in PostgreSQL, shared by every process of a deployment. Statements of a transaction
 * run on the one connection that transaction holds (found through the async context of its work); others take
 * any connection of the pool.
 */
export class PostgresDatabase implements PlatformDatabase {
  readonly engine = 'postgres';
  readonly #pool: pg.Pool;
  readonly #transaction = new AsyncLocalStorage<{ readonly client: pg.PoolClient; open: boolean }>();

  constructor(config: pg.PoolConfig) {
    this.#pool = new pg.Pool({ ...config, types: NUMBER_TYPES });
    // An idle connection that the server closes (a restart, a failover) must not take the process down with it.
    this.#pool.on('error', () => undefined);
  }

  async get<Row>(sql: string, ...params: SqlValue[]): Promise<Row | undefined> {
    return (await this.#query<Row>(sql, params)).rows[0];
  }

  async all<Row>(sql: string, ...params: SqlValue[]): Promise<Row[]> {
    return (await this.#query<Row>(sql, params)).rows;
  }

  async run(sql: string, ...params: SqlValue[]): Promise<number> {
    return (await this.#query(sql, params)).rowCount ?? 0;
  }

  async transaction<T>(work: () => Promise<T>): Promise<T> {
    if (this.#transaction.getStore()?.open === true) return work();
    const client = await this.#pool.connect();
    const transaction = { client, open: true };
    let broken: unknown;
    // The pool listens to a connection only while it is idle: one the server ends between two statements of the
    // transaction (a restart, a failover) would otherwise be an uncaught error that ends the process. The next
    // statement fails instead, and the connection is closed rather than given back.
    const lost = (error: Error): void => { broken = error; };
    client.on('error', lost);
    try {
      await client.query('BEGIN');
      try {
        const result = await this.#transaction.run(transaction, work);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch((rollbackError: unknown) => { broken = rollbackError; });
        throw error;
      }
    } finally {
      // Work started inside it that outlives it (a timer, a listener) runs on the pool from now on.
      transaction.open = false;
      // A connection whose rollback failed may still be inside the transaction: it is closed, not given back.
      client.removeListener('error', lost);
      client.release(broken instanceof Error ? broken : undefined);
    }
  }

  async close(): Promise<void> {
    await this.#pool.end();
  }

  /**
   * Runs SQL as written (with `$1` parameters) in the current transaction, if any: for a library whose writes must
   * join the store's (the job queue's send).
   */
  async executeSql(text: string, values: unknown[]): Promise<{ rows: unknown[] }> {
    const transaction = this.#transaction.getStore();
    const client = transaction?.open === true ? transaction.client : undefined;
    return client === undefined ? this.#pool.query(text, values) : client.query(text, values);
  }

  async #query<Row>(sql: string, params: SqlValue[]): Promise<pg.QueryResult<Row & pg.QueryResultRow>> {
    const text = numberedParameters(sql);
    const transaction = this.#transaction.getStore();
    const client = transaction?.open === true ? transaction.client : undefined;
    return client === undefined ? this.#pool.query<Row & pg.QueryResultRow>(text, params) : client.query<Row & pg.QueryResultRow>(text, params);
  }
}

/** `?` → `$1`, `$2`…: the statements are written with no `?` inside a literal, so each one is a parameter. */
function numberedParameters(sql: string): string {
  let index = 0;
  return sql.replace(/\?/g, () => `$${String(++index)}`);
}
