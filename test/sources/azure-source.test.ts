import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAzureStore, type AzureStore } from '../support/azure-store.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { logMessages, syncAndWait } from '../support/sync.ts';

const GAPMINDER = path.resolve(import.meta.dirname, '..', 'fixtures', 'real-world', 'tidyverse', 'readr', 'inst', 'extdata');
const gapminder = (continent: string): Buffer => readFileSync(path.join(GAPMINDER, `mini-gapminder-${continent}.csv`));
const PREFIX = 'az://exports/gapminder';

// A filesystem source over a container of Azure Blob Storage (Microsoft's Azurite on loopback), read by DuckDB's
// azure extension, listed with each blob's ETag by Azure's own SDK.
describe('filesystem sources reading Azure Blob Storage', () => {
  let azure: AzureStore;
  let quarry: TestQuarry;

  const loaded = (): Promise<Record<string, unknown>[]> =>
    quarry.query('SELECT _quarry_file AS file, count(*)::INTEGER AS n FROM raw_exports.exports GROUP BY 1 ORDER BY 1');

  beforeAll(async () => {
    azure = await startAzureStore();
    await azure.put('exports', { 'gapminder/africa.csv': gapminder('africa'), 'gapminder/2007/europe.csv': gapminder('europe'), 'elsewhere/asia.csv': gapminder('asia') });
    quarry = await startQuarry({
      sourcesYaml: `sources:\n  - name: exports\n    type: filesystem\n    filesystem: { bucket_url: "${PREFIX}", file_pattern: "**/*.csv", credentials_env: EXPORTS_AZURE }\n`,
    });
    await appendFile(path.join(quarry.dir, '.env'), `\nEXPORTS_AZURE='${azure.connectionString}'\n`);
    quarry.ctx.reloadSources();
  }, 120_000);

  afterAll(async () => {
    await quarry.close();
    await azure.stop();
  });

  it('loads every blob under the prefix, nested ones too, each row naming its az:// URL', async () => {
    expect(await syncAndWait(quarry, 'exports')).toMatchObject({ type: 'sync_completed', rows: 12 });
    expect(await loaded()).toEqual([{ file: `${PREFIX}/2007/europe.csv`, n: 6 }, { file: `${PREFIX}/africa.csv`, n: 6 }]);
    expect([...(await quarry.ctx.store.fileLedger.forSource('exports')).values()].map((entry) => entry.sha256)).toEqual([expect.stringMatching(/^etag:0x/), expect.stringMatching(/^etag:0x/)]);
  });

  it('reads only a changed blob again, and removes the rows of a deleted one', async () => {
    await azure.put('exports', { 'gapminder/africa.csv': gapminder('oceania') });
    await azure.remove('exports', 'gapminder/2007/europe.csv');
    expect(await syncAndWait(quarry, 'exports')).toMatchObject({ type: 'sync_completed', rows: 2 });
    expect(await loaded()).toEqual([{ file: `${PREFIX}/africa.csv`, n: 2 }]);
    expect(await logMessages(quarry, 'exports', 'INFO')).toContain('Removed the rows of 1 deleted file(s)');
  });

  it('fails with a refused key, naming the container and never the key, and keeps the rows', async () => {
    const envFile = path.join(quarry.dir, '.env');
    await writeFile(envFile, (await readFile(envFile, 'utf8')).replace(azure.connectionString, azure.wrongConnectionString));
    quarry.ctx.reloadSources();
    const ending = await syncAndWait(quarry, 'exports');
    expect(ending).toMatchObject({ type: 'sync_failed' });
    const error = ending.type === 'sync_failed' ? ending.error : '';
    expect(error).toMatch(/^Cannot list the objects under az:\/\/exports\/gapminder\/: \w+ \(HTTP 403\)/);
    expect(error).not.toContain('AccountKey');
    expect(await loaded()).toEqual([{ file: `${PREFIX}/africa.csv`, n: 2 }]);
  });
});
