export { syncFileSource, rawSchemaOf, FILE_COLUMN, LOADED_AT_COLUMN, type FileSourceSpec, type SyncOutcome } from './sync-file-source.ts';
export { SyncFailedError } from './sync-failed-error.ts';
export { listSourceFiles, formatOf, type SourceFile, type SourceFileListing } from './list-source-files.ts';
export { filesChangedSinceLastSync } from './files-changed.ts';
export { LedgerHasher } from './ledger-hasher.ts';
export { widenType } from './evolve-schema.ts';
export {
  saveUpload, removeUnfinishedUploads, listCsvFiles, deleteCsvFile, sanitizeFileName, UnsafePathError, FileNotFoundError, NotACsvSourceError, NotAnObjectSourceError, UploadTooLargeError,
  type CsvLocation, type CsvFileEntry,
} from './csv-files.ts';
export { loaderFor, fileSourceLocation, sourceObjectsPrefix } from './source-loaders.ts';
export { assertSourcesWithinProject, assertSourceWithinProject } from './project-bounds.ts';
export { createSourceFolder, folderToCreate } from './source-folder.ts';
export type { SourceLoader, LoadContext, LoadOutcome, LoadMessage, ReadContext, FileLocation, SyncProgress } from './source-loader.ts';
export { loadStagedTables, rawTablesOf } from './load-staged-tables.ts';
export { StagingArea } from './staging-area.ts';
export type { Connector, CursorState, ExtractContext, RecordSink, TableSpec } from './connector.ts';
export { SourceTokens, SOURCE_OAUTH_PROVIDERS, isSourceOAuthProvider, type SourceOAuthProviderName, type StoredSourceToken } from './source-oauth.ts';
export { OutboundPolicy, OutboundRefusedError } from './outbound/index.ts';
export { backfillWindow, BackfillNotSupportedError, BACKFILL_TYPES } from './backfill.ts';
export type { DateWindow } from './date-window.ts';
