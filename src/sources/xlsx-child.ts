/**
 * Converts one spreadsheet to Parquet, in a process of its own: DuckDB's excel extension reads `.xlsx` files
 * (zip archives of XML) in a way a crafted file can make spin, which here costs only this process, ended by its
 * deadline (xlsx-stand-ins.ts). Arguments: the excel extension's file, the spreadsheet, the Parquet file to write, and
 * the deadline in seconds, which it keeps too, should the service that started it be gone.
 * The spreadsheet's first sheet is read as DuckDB's read_xlsx reads it alone. Exits 1 with DuckDB's message on stderr.
 */
import { DuckDBInstance } from '@duckdb/node-api';

const [extension, input, output, deadlineSeconds] = process.argv.slice(2);
setTimeout(() => { process.exit(1); }, (Number(deadlineSeconds ?? 0) + 5) * 1000).unref();
const quote = (text: string): string => `'${text.replaceAll("'", "''")}'`;

try {
  if (extension === undefined || input === undefined || output === undefined) throw new Error('expected the extension, the spreadsheet and the Parquet file');
  const instance = await DuckDBInstance.create(':memory:', {
    threads: '1', memory_limit: '512MB', autoinstall_known_extensions: 'false', autoload_known_extensions: 'false',
  });
  const connection = await instance.connect();
  await connection.run(`LOAD ${quote(extension)}`);
  // Nothing but the two files from here on.
  await connection.run(`SET allowed_paths = [${quote(input)}, ${quote(output)}]`);
  await connection.run('SET enable_external_access = false');
  await connection.run(`COPY (SELECT * FROM read_xlsx(${quote(input)})) TO ${quote(output)} (FORMAT parquet)`);
  connection.closeSync();
  instance.closeSync();
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
