import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { logMessages, syncAndWait } from '../support/sync.ts';

const SOURCES = `sources:
  - name: shop
    type: local_files
    local_files:
      directory: data/shop
`;

describe('a local_files source with files from the wild', () => {
  let quarry: TestQuarry;
  let folder: string;
  const count = async (): Promise<number> => Number((await quarry.query('SELECT count(*) AS n FROM raw_shop.shop'))[0]?.n);

  beforeEach(async () => {
    quarry = await startQuarry({ sourcesYaml: SOURCES });
    folder = path.join(quarry.dir, 'data', 'shop');
    mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, 'a.csv'), 'id,name,amount\n1,pen,10\n2,ink,20\n');
    writeFileSync(path.join(folder, 'b.csv'), 'id,name,amount\n3,pad,30\n');
  });
  afterEach(async () => {
    await quarry.close();
  });

  it('commits a removed file and an added file with a new column in one sync, and the next sync is not blocked', async () => {
    expect(await syncAndWait(quarry, 'shop')).toMatchObject({ type: 'sync_completed', rows: 3 });
    rmSync(path.join(folder, 'b.csv'));
    writeFileSync(path.join(folder, 'c.csv'), 'id,name,amount,note\n4,cap,40,new\n');
    expect(await syncAndWait(quarry, 'shop')).toMatchObject({ type: 'sync_completed', rows: 3 });
    expect(await quarry.query('SELECT id, note FROM raw_shop.shop ORDER BY id')).toEqual([
      { id: 1, note: null }, { id: 2, note: null }, { id: 4, note: 'new' },
    ]);
    writeFileSync(path.join(folder, 'd.csv'), 'id,name,amount\n5,box,50\n');
    expect(await syncAndWait(quarry, 'shop')).toMatchObject({ type: 'sync_completed', rows: 4 });
    rmSync(path.join(folder, 'c.csv'));
    rmSync(path.join(folder, 'd.csv'));
    expect(await syncAndWait(quarry, 'shop')).toMatchObject({ type: 'sync_completed', rows: 2 });
  });

  it('merges a column spelt A into the column a of an earlier file and logs which spelling the table keeps', async () => {
    writeFileSync(path.join(folder, 'a.csv'), 'id,a\n1,x\n');
    rmSync(path.join(folder, 'b.csv'));
    expect(await syncAndWait(quarry, 'shop')).toMatchObject({ type: 'sync_completed', rows: 1 });
    writeFileSync(path.join(folder, 'b.csv'), 'id,A\n2,y\n');
    expect(await syncAndWait(quarry, 'shop')).toMatchObject({ type: 'sync_completed', rows: 2 });
    expect(await quarry.query('SELECT id, a FROM raw_shop.shop ORDER BY id')).toEqual([{ id: 1, a: 'x' }, { id: 2, a: 'y' }]);
    expect(await quarry.query("SELECT column_name FROM information_schema.columns WHERE table_name = 'shop' AND lower(column_name) = 'a'"))
      .toEqual([{ column_name: 'a' }]);
    expect(logMessages(quarry, 'shop', 'INFO')).toContain(`Column A of ${path.join(folder, 'b.csv')} loaded into column a, spelt as in ${path.join(folder, 'a.csv')}`);
    expect(await count()).toBe(2);
  });
});
