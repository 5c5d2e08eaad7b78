export { withWriteConnection, WarehouseBusyError } from './write-connection.ts';
export { publishReplica, replicaProblem } from './replica.ts';
export { quoteIdentifier, quoteLiteral } from './sql.ts';
export type { DuckDBConnection } from '@duckdb/node-api';
export { inTransaction } from './transaction.ts';
export { withSandboxedReader, READER_SANDBOX_PYTHON_PATH } from './sandboxed-reader.ts';
