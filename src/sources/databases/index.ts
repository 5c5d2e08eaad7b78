export { connectDatabase, databaseCause } from './connect-database.ts';
export type { DatabaseReader, TableDescription, ExportColumn, CursorRange, ExportResult } from './database-reader.ts';
