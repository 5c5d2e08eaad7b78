export { withWriteConnection, WarehouseBusyError } from './write-connection.ts';
export { publishReplica, replicaProblem } from './replica.ts';
export { quoteIdentifier, quoteLiteral } from './sql.ts';
export type { DuckDBConnection } from '@duckdb/node-api';
export { inTransaction } from './transaction.ts';
export { withSandboxedReader, openSandboxedReader, READER_SANDBOX_PYTHON_PATH, type ReaderLimits, type SandboxedReader } from './sandboxed-reader.ts';
export { assertReadsOnly, QueryNotAllowedError } from './reader-sql.ts';
export {
  WarehouseReaders, QueryTimeoutError, QueryFailedError,
  type ReadQueryLimits, type ReadQueryResult, type QueryAnswer, type QueryColumn,
} from './read-query.ts';
