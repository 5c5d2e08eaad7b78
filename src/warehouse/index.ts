export { withWriteConnection, WarehouseBusyError } from './write-connection.ts';
export { publishReplica } from './replica.ts';
export { quoteIdentifier, quoteLiteral } from './sql.ts';
export type { DuckDBConnection } from '@duckdb/node-api';
export { inTransaction } from './transaction.ts';
