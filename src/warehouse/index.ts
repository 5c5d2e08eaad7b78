export { LakeWriter, type LakeWrite, type WriterTurn, type WriteOpening, type WriteOptions } from './lake-writer.ts';
export { LAKE_FILE_CODEC, LAKE_FILE_COPY_OPTIONS } from './lake-connection.ts';
export { WarehouseBusyError } from './writer-lock-file.ts';
export { quoteIdentifier, quoteLiteral } from './sql.ts';
export { openScratchConnection, type ScratchConnection } from './scratch-connection.ts';
export type { DuckDBConnection } from '@duckdb/node-api';
export { AbortedTransactionError, CommitConflictError } from './transaction.ts';
export { withSandboxedReader, openSandboxedReader, READER_SANDBOX_PYTHON_PATH, type ReaderLimits, type SandboxedReader } from './sandboxed-reader.ts';
export { assertReadsOnly, QueryNotAllowedError } from './reader-sql.ts';
export {
  WarehouseReaders, QueryTimeoutError, QueryFailedError, AnswerTooLargeError,
  type ReadQueryLimits, type ReadQueryResult, type QueryAnswer, type QueryColumn,
} from './read-query.ts';
export { QueryProcess, QUERY_PROCESS_MEMORY } from './query-process.ts';
export {
  lakeLocation, lakeMetadataSchema, extensionFile, lakeExtensionsOf, dataInBucket, lakeFolders, catalogPath, catalogMissing, describeLake, lakeChildEnv, readerLocation, DUCKDB_EXTENSIONS_DIR, LAKE_ALIAS, LAKE_EXTENSIONS, LAKE_BUCKET_SECRET,
  type LakeLocation, type PostgresCatalog,
} from './lake-location.ts';
export { takeCatalogWriterLock, checkCatalogReachable, CatalogUnreachableError } from './catalog-writer-lock.ts';
export { moveLakeToBucket, LakeMoveError, type LakeMoveOutcome } from './move-to-bucket.ts';
export { moveCatalogToPostgres, CatalogMoveError, type CatalogMoveOutcome } from './move-catalog.ts';
export { checkCatalogReader, CatalogReaderRefusedError } from './catalog-reader-check.ts';
export { lakeProblem } from './lake-health.ts';
export { lakeBucketProblem } from './lake-bucket.ts';
export { prepareWarehouse } from './prepare-warehouse.ts';
export { QUARRY_AUTHOR, type CommitLabel } from './commit-label.ts';
export { listLakeTables, type LakeTable } from './lake-tables.ts';
export { listSnapshots, latestSnapshotId, type LakeSnapshot, type SnapshotJob } from './snapshots.ts';
export { snapshotsOfJob, snapshotExists, restoreSchemaAt } from './restore-schema.ts';
export { maintainLake, type MaintenanceOutcome } from './maintain-lake.ts';
export { objectStorageSecretStatement } from './bucket-secret.ts';
export { setJobThreads } from './job-instance.ts';
