import type { DatabaseSync } from 'node:sqlite';

export const TEST_STATUSES = ['pass', 'fail', 'warn', 'error', 'skipped'] as const;
export type TestStatus = (typeof TEST_STATUSES)[number];

/** One data test's outcome in one run, as dbt reported it. */
export interface TestResultRecord {
  readonly jobId: number;
  /** dbt's unique id of the test. */
  readonly test: string;
  readonly name: string;
  /** The model (or seed, snapshot) the test checks; null for a singular test over several. */
  readonly model: string | null;
  readonly column: string | null;
  /** `unique`, `not_null`, ... or `singular`. */
  readonly type: string;
  readonly severity: 'error' | 'warn';
  readonly status: TestStatus;
  readonly failures: number | null;
  readonly message: string | null;
  /** The first lines of the SQL dbt ran. */
  readonly compiledSql: string | null;
  /** Up to 20 of the rows that failed, as dbt stored them. */
  readonly failingRows: readonly Record<string, unknown>[];
  readonly finishedAt: string;
}

interface TestResultRow {
  job_id: number; test: string; name: string; model: string | null; column_name: string | null; type: string; severity: 'error' | 'warn';
  status: TestStatus; failures: number | null; message: string | null; compiled_sql: string | null; failing_rows: string; finished_at: string;
}

function toRecord(row: TestResultRow): TestResultRecord {
  return Object.freeze({
    jobId: row.job_id, test: row.test, name: row.name, model: row.model, column: row.column_name, type: row.type, severity: row.severity,
    status: row.status, failures: row.failures, message: row.message, compiledSql: row.compiled_sql,
    failingRows: JSON.parse(row.failing_rows) as Record<string, unknown>[], finishedAt: row.finished_at,
  });
}

/** The outcome of every data test in every run, so the models page, the tests API and health read them without dbt. */
export class TestResultsRepository {
  readonly #database: DatabaseSync;
  constructor(database: DatabaseSync) {
    this.#database = database;
  }

  record(result: TestResultRecord): void {
    this.#database.prepare(`
      INSERT INTO test_results (job_id, test, name, model, column_name, type, severity, status, failures, message, compiled_sql, failing_rows, finished_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
      .run(result.jobId, result.test, result.name, result.model, result.column, result.type, result.severity, result.status, result.failures,
        result.message, result.compiledSql, JSON.stringify(result.failingRows), result.finishedAt);
  }

  /** The latest outcome of every test that ever ran, keyed by its unique id. */
  latestByTest(): Map<string, TestResultRecord> {
    const rows = this.#database.prepare('SELECT * FROM test_results WHERE id IN (SELECT max(id) FROM test_results GROUP BY test)')
      .all() as unknown as TestResultRow[];
    return new Map(rows.map((row) => [row.test, toRecord(row)]));
  }

  /** Whether the latest outcome of any test of the model is a failure (or an error). */
  failsFor(model: string): boolean {
    const row = this.#database.prepare(`
      SELECT 1 FROM test_results WHERE id IN (SELECT max(id) FROM test_results WHERE model = ? GROUP BY test) AND status IN ('fail', 'error') LIMIT 1`)
      .get(model);
    return row !== undefined;
  }

  forJob(jobId: number): TestResultRecord[] {
    return (this.#database.prepare('SELECT * FROM test_results WHERE job_id = ? ORDER BY id').all(jobId) as unknown as TestResultRow[]).map(toRecord);
  }
}
