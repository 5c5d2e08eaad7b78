import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openScratchConnection, quoteLiteral, type DuckDBConnection } from '../../src/warehouse/index.ts';
import { startObjectStore, type ObjectStore } from '../support/object-store.ts';

const BUCKET = 'quarry-lake';
const PARQUET_FILE = `s3://${BUCKET}/nested/prefix/part.parquet`;
const CSV_FILE = `s3://${BUCKET}/exports/orders.csv`;
const ORDERS = [
  { id: 1, region: 'north', amount: 10.5 },
  { id: 2, region: 'south', amount: 20 },
  { id: 3, region: 'north', amount: 5.25 },
];
const ORDERS_SQL = `SELECT * FROM (VALUES ${ORDERS.map(({ id, region, amount }) => `(${String(id)}, ${quoteLiteral(region)}, ${String(amount)})`).join(', ')}) AS orders(id, region, amount)`;

describe('object storage through DuckDB httpfs', () => {
  let store: ObjectStore;

  /** Runs `work` on a connection with httpfs loaded the way Quarry loads extensions, holding an S3 secret with `secretAccessKey`. */
  const withStore = async <T>(secretAccessKey: string, work: (connection: DuckDBConnection) => Promise<T>): Promise<T> => {
    const scratch = await openScratchConnection(['httpfs']);
    try {
      await scratch.connection.run(`CREATE TEMPORARY SECRET object_store (
        TYPE s3, KEY_ID ${quoteLiteral(store.accessKeyId)}, SECRET ${quoteLiteral(secretAccessKey)},
        ENDPOINT ${quoteLiteral(store.endpoint)}, URL_STYLE 'path', USE_SSL false, REGION ${quoteLiteral(store.region)})`);
      return await work(scratch.connection);
    } finally {
      await scratch.close();
    }
  };
  const rows = async (connection: DuckDBConnection, sql: string): Promise<Record<string, unknown>[]> =>
    (await connection.runAndReadAll(sql)).getRowObjectsJson();

  beforeAll(async () => {
    store = await startObjectStore();
  });
  afterAll(async () => {
    await store.stop();
  });

  it('writes Parquet and CSV under nested prefixes, lists them and reads the rows back', async () => {
    await withStore(store.secretAccessKey, async (connection) => {
      await connection.run(`COPY (${ORDERS_SQL}) TO ${quoteLiteral(PARQUET_FILE)} (FORMAT parquet)`);
      await connection.run(`COPY (${ORDERS_SQL}) TO ${quoteLiteral(CSV_FILE)} (FORMAT csv, HEADER)`);

      expect(await rows(connection, `SELECT file FROM glob(${quoteLiteral(`s3://${BUCKET}/**`)}) ORDER BY file`))
        .toEqual([{ file: CSV_FILE }, { file: PARQUET_FILE }]);
      const ordersIn = (table: string): Promise<Record<string, unknown>[]> =>
        rows(connection, `SELECT id::INTEGER AS id, region, amount::DOUBLE AS amount FROM ${table} ORDER BY id`);
      expect(await ordersIn(`read_parquet(${quoteLiteral(PARQUET_FILE)})`)).toEqual(ORDERS);
      expect(await ordersIn(`read_csv(${quoteLiteral(CSV_FILE)})`)).toEqual(ORDERS);
    });
  });

  it('refuses a wrong secret key without quoting the key in its error', async () => {
    const wrongSecret = `wrong${store.secretAccessKey.slice(5)}`; // the key is hex, so this differs from it
    const read = withStore(wrongSecret, (connection) => connection.run(`SELECT count(*) FROM read_parquet(${quoteLiteral(PARQUET_FILE)})`));

    await expect(read).rejects.toThrow(/HTTP 403 Forbidden[\s\S]*SignatureDoesNotMatch/);
    await expect(read).rejects.not.toThrow(wrongSecret);
    await expect(read).rejects.not.toThrow(store.secretAccessKey);
  });
});
