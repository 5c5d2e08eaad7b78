// The baseline of the memory benchmark, as a process of its own: loads the CSV files matching argv[2] into a new
// lake made as Quarry makes one, in folder argv[3], with one CREATE TABLE AS: the least a loader on DuckDB holds.
import { openLakeForWriting } from '../src/warehouse/lake-connection.ts';
import { lakeIn } from './measure.ts';

const [files = '', lakeDir = ''] = process.argv.slice(2);
const lake = await openLakeForWriting(lakeIn(lakeDir));
try {
  await lake.connection.run(`CREATE TABLE small AS SELECT * FROM read_csv('${files.replaceAll("'", "''")}')`);
} finally {
  await lake.close();
}
