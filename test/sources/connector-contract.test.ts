import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContractFake, ContractVendor } from '../fakes/contract-vendor.ts';
import { airtableContract } from '../fakes/airtable.ts';
import { asanaContract } from '../fakes/asana.ts';
import { csvHostContract } from '../fakes/csv-host.ts';
import { githubContract } from '../fakes/github.ts';
import { hubspotContract } from '../fakes/hubspot.ts';
import { jiraContract } from '../fakes/jira.ts';
import { pipedriveContract } from '../fakes/pipedrive.ts';
import { strapiContract } from '../fakes/strapi.ts';
import { stripeContract } from '../fakes/stripe.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { logMessages, syncAndWait } from '../support/sync.ts';

/**
 * The engine's contract with every HTTP connector, run against each vendor's fake: a 429 (with Retry-After)
 * and a 5xx mid-pagination are retried and every record loads once; a refused credential fails the sync with
 * one line and leaves the loaded data as it was. Vendor tests keep only what is particular to their vendor.
 */
const VENDORS: readonly ContractVendor[] = [
  githubContract, hubspotContract, stripeContract, airtableContract, strapiContract, asanaContract, pipedriveContract, jiraContract,
  csvHostContract,
];

const fakes = new Map<string, ContractFake>();
let quarry: TestQuarry;

/** Each vendor's source is named after its type. */
function sourceEntry(type: string, fake: ContractFake): string[] {
  return [`  - name: ${type}`, `    type: ${type}`, ...fake.section.map((line) => `    ${line}`)];
}

beforeAll(async () => {
  for (const vendor of VENDORS) fakes.set(vendor.type, await vendor.start());
  quarry = await startQuarry({
    env: Object.assign({}, ...[...fakes.values()].map((fake) => fake.env)) as Record<string, string>,
    sourcesYaml: ['sources:', ...[...fakes].flatMap(([type, fake]) => sourceEntry(type, fake)), ''].join('\n'),
  });
});

afterAll(async () => {
  await quarry.close();
  for (const fake of fakes.values()) {
    await fake.api.close();
    await fake.close?.();
  }
});

async function countRecords(source: string, fake: ContractFake): Promise<{ n: number; keys: number }> {
  const [row] = await quarry.query(`SELECT count(*)::INTEGER AS n, count(DISTINCT "${fake.key}")::INTEGER AS keys FROM raw_${source}.${fake.table}`);
  return row as { n: number; keys: number };
}

describe.each(VENDORS.map((vendor) => vendor.type))('the connector engine reading %s', (type) => {
  const fake = (): ContractFake => fakes.get(type) as ContractFake;

  it('retries a 429 with Retry-After and a 5xx mid-pagination and loads each record once', async () => {
    expect(await syncAndWait(quarry, type, true)).toMatchObject({ type: 'sync_completed' });
    const clean = await countRecords(type, fake());
    expect(clean.n).toBeGreaterThan(0);
    expect(clean.keys).toBe(clean.n);
    const atRequest = fake().faultAtRequest ?? 2;
    fake().api.inject(
      { status: 429, atRequest, pathPrefix: fake().pagedPath, retryAfterSeconds: 1 },
      { status: 500, atRequest, pathPrefix: fake().pagedPath },
    );
    expect(await syncAndWait(quarry, type, true)).toMatchObject({ type: 'sync_completed' });
    expect(await countRecords(type, fake())).toEqual(clean);
    expect(logMessages(quarry, type, 'WARNING')).toEqual(expect.arrayContaining([
      expect.stringMatching(/answered 429.*retrying in 1\.0 s/), expect.stringMatching(/answered 500/),
    ]));
  });

  it('fails with one line naming the refusal when the credential is revoked, and keeps the loaded data', async () => {
    const before = await countRecords(type, fake());
    const restore = fake().revoke();
    try {
      const end = await syncAndWait(quarry, type);
      expect(end.type).toBe('sync_failed');
      const error = end.type === 'sync_failed' ? end.error : '';
      expect(error).not.toContain('\n');
      const refusal = fake().refusal(fake().api.url);
      if (typeof refusal === 'string') expect(error).toBe(refusal);
      else expect(error).toMatch(refusal);
      expect(logMessages(quarry, type, 'ERROR')).toEqual([error]);
      expect(await countRecords(type, fake())).toEqual(before);
    } finally {
      restore();
    }
  });
});
