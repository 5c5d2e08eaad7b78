import type { PlatformDatabase } from './platform-database.ts';

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
  readonly #database: PlatformDatabase;
  constructor(database: PlatformDatabase) {
    this.#database = database;
  }

  async record(result: TestResultRecord): Promise<void> {
    await this.#database.run(`
      INSERT INTO test_results (job_id, test, name, model, column_name, type, severity, status, failures, message, compiled_sql, failing_rows, finished_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      result.jobId, result.test, result.name, result.model, result.column, result.type, result.severity, result.status, result.failures,
      result.message, result.compiledSql, JSON.stringify(result.failingRows), result.finishedAt);
  }

  /** The latest outcome of every test that ever ran, keyed by its unique id. */
  async latestByTest(): Promise<Map<string, TestResultRecord>> {
    const rows = await this.#database.all<TestResultRow>('SELECT * FROM test_results WHERE id IN (SELECT max(id) FROM test_results GROUP BY test)');
    return new Map(rows.map((row) => [row.test, toRecord(row)]));
  }

  /** Whether the latest outcome of any test of the model is a failure (or an error). */
  async failsFor(model: string): Promise<boolean> {
    const row = await this.#database.get(`
      SELECT 1 FROM test_results WHERE id IN (SELECT max(id) FROM test_results WHERE model = ? GROUP BY test) AND status IN ('fail', 'error') LIMIT 1`,
      model);
    return row !== undefined;
  }

  async forJob(jobId: number): Promise<TestResultRecord[]> {
    return (await this.#database.all<TestResultRow>('SELECT * FROM test_results WHERE job_id = ? ORDER BY id', jobId)).map(toRecord);
  }
}
