import { AsyncLocalStorage } from 'node:async_hooks';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { PlatformDatabase, SqlValue } from './platform-database.ts';

const STATEMENTS_KEPT = 500;

/**
 * The embedded platform database: one synchronous connection, so a statement never waits on the event loop. A
 * transaction spans awaits, and every statement on the connection between its BEGIN and COMMIT belongs to it:
 * statements of other callers therefore wait for it to end, and those of its own work (known by the async
 * context they run in) go straight through.
 */
export class SqliteDatabase implements PlatformDatabase {
  readonly engine = 'sqlite';
  readonly #connection: DatabaseSync;
  readonly #inTransaction = new AsyncLocalStorage<object>();
  readonly #statements = new Map<string, StatementSync>();
  #transactionEnded: Promise<void> | undefined;
  /** The open transaction: work started inside one that outlives it (a timer, a listener) is an outsider after it ends. */
  #openTransaction: object | undefined;

  constructor(connection: DatabaseSync) {
    this.#connection = connection;
  }

  async get<Row>(sql: string, ...params: SqlValue[]): Promise<Row | undefined> {
    return this.#whenFree(() => this.#statement(sql).get(...params) as Row | undefined);
  }

  async all<Row>(sql: string, ...params: SqlValue[]): Promise<Row[]> {
    return this.#whenFree(() => this.#statement(sql).all(...params) as Row[]);
  }

  async run(sql: string, ...params: SqlValue[]): Promise<number> {
    return this.#whenFree(() => Number(this.#statement(sql).run(...params).changes));
  }

  async transaction<T>(work: () => Promise<T>): Promise<T> {
    if (this.#ownsOpenTransaction()) return work();
    return this.#whenFree(() => this.#transactionOf(work));
  }

  /** Begins before its first await, so in the turn #whenFree found the connection free. */
  async #transactionOf<T>(work: () => Promise<T>): Promise<T> {
    let end = (): void => undefined;
    this.#transactionEnded = new Promise((resolve) => { end = resolve; });
    const transaction = {};
    this.#openTransaction = transaction;
    try {
      this.#connection.exec('BEGIN IMMEDIATE');
      try {
        const result = await this.#inTransaction.run(transaction, work);
        this.#connection.exec('COMMIT');
        return result;
      } catch (error) {
        // SQLite has already rolled back after some errors (an I/O error, a full disk); a second ROLLBACK would fail and hide the cause.
        if (this.#connection.isTransaction) this.#connection.exec('ROLLBACK');
        throw error;
      }
    } finally {
      this.#transactionEnded = undefined;
      this.#openTransaction = undefined;
      end();
    }
  }

  async close(): Promise<void> {
    await this.#whenFree(() => { this.#connection.close(); });
  }

  /**
   * Runs `statement` once no other caller's transaction holds the connection, in the same turn as the check that
   * found it free, so that no transaction can begin in between.
   */
  async #whenFree<T>(statement: () => T): Promise<T> {
    for (let open = this.#othersTransaction(); open; open = this.#othersTransaction()) await open;
    return statement();
  }

  #statement(sql: string): StatementSync {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.#connection.prepare(sql);
      // Statements are written as constants, so this stays small; the bound is for one built from its input.
      if (this.#statements.size >= STATEMENTS_KEPT) this.#statements.clear();
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  #othersTransaction(): Promise<void> | undefined {
    return this.#ownsOpenTransaction() ? undefined : this.#transactionEnded;
  }

  #ownsOpenTransaction(): boolean {
    return this.#openTransaction !== undefined && this.#inTransaction.getStore() === this.#openTransaction;
  }
}
