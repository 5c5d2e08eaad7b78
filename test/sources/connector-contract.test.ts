import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContractFake, ContractVendor, CredentialedFake } from '../fakes/contract-vendor.ts';
import { airtableContract } from '../fakes/airtable.ts';
import { asanaContract } from '../fakes/asana.ts';
import { chessComContract } from '../fakes/chess-com.ts';
import { csvHostContract } from '../fakes/csv-host.ts';
import { freshdeskContract } from '../fakes/freshdesk.ts';
import { githubContract } from '../fakes/github.ts';
import { googleAdsContract } from '../fakes/google-ads.ts';
import { googleAnalyticsContract } from '../fakes/google-analytics.ts';
import { pubSubContract } from '../fakes/google-pubsub.ts';
import { googleSheetsContract } from '../fakes/google-sheets.ts';
import { greenhouseContract } from '../fakes/greenhouse.ts';
import { hubspotContract } from '../fakes/hubspot.ts';
import { itemsApiContract } from '../fakes/items-api.ts';
import { jiraContract } from '../fakes/jira.ts';
import { jsonHostContract } from '../fakes/json-host.ts';
import { matomoContract } from '../fakes/matomo.ts';
import { metaMarketingContract } from '../fakes/meta-marketing.ts';
import { notionContract } from '../fakes/notion.ts';
import { personioContract } from '../fakes/personio.ts';
import { pipedriveContract } from '../fakes/pipedrive.ts';
import { salesforceContract } from '../fakes/salesforce.ts';
import { shopifyContract } from '../fakes/shopify.ts';
import { slackContract } from '../fakes/slack.ts';
import { strapiContract } from '../fakes/strapi.ts';
import { stripeContract } from '../fakes/stripe.ts';
import { youtubeContract } from '../fakes/youtube.ts';
import { zendeskContract } from '../fakes/zendesk.ts';
import type { SeenRequest } from '../support/fake-api.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { logMessages, syncAndWait, type SyncEnd } from '../support/sync.ts';

/**
 * The engine's contract with every HTTP connector, run against each vendor's fake: a 429 (with Retry-After,
 * which is waited for) and a 5xx mid-pagination are retried and every record loads once; a refused credential
 * fails the sync with one line that shows no secret, leaves the loaded data as it was and the source failed.
 * Vendor tests keep only what is particular to their vendor.
 */
const VENDORS: readonly ContractVendor[] = [
  githubContract, hubspotContract, stripeContract, airtableContract, strapiContract, asanaContract, pipedriveContract, jiraContract,
  csvHostContract, jsonHostContract, chessComContract, pubSubContract, salesforceContract, zendeskContract, freshdeskContract, personioContract, notionContract,
  greenhouseContract, itemsApiContract, googleAdsContract, matomoContract, metaMarketingContract, googleSheetsContract, shopifyContract,
  slackContract, youtubeContract, googleAnalyticsContract,
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
  for (const fake of fakes.values()) await fake.attach?.(quarry);
});

afterAll(async () => {
  await quarry.close();
  for (const fake of fakes.values()) {
    await fake.api.close();
    await fake.close?.();
  }
});

async function countRecords(source: string, fake: ContractFake): Promise<{ n: number; keys: number }> {
  const [row] = await quarry.query(`SELECT count(*)::INTEGER AS n, count(DISTINCT ${fake.key})::INTEGER AS keys FROM raw_${source}.${fake.table}`);
  return row as { n: number; keys: number };
}

async function sync(type: string, fullRefresh = false): Promise<SyncEnd> {
  fakes.get(type)?.beforeSync?.();
  return syncAndWait(quarry, type, fullRefresh);
}

/** A timer may fire a few milliseconds before its delay by the clock the fake reads. */
const TIMER_SLACK_MS = 50;

describe.each(VENDORS.map((vendor) => vendor.type))('the connector engine reading %s', (type) => {
  const fake = (): ContractFake => fakes.get(type) as ContractFake;

  it('retries a 429 after its Retry-After and a 5xx mid-pagination and loads each record once', async () => {
    expect(await sync(type, true)).toMatchObject({ type: 'sync_completed' });
    const clean = await countRecords(type, fake());
    expect(clean.n).toBeGreaterThan(0);
    expect(clean.keys).toBe(clean.n);
    const atRequest = fake().faultAtRequest ?? 2;
    const { pagedPath, api } = fake();
    const before = api.requests.length;
    api.inject(
      { status: 429, atRequest, pathPrefix: pagedPath, retryAfterSeconds: 1 },
      { status: 500, atRequest, pathPrefix: pagedPath },
    );
    expect(await sync(type, true)).toMatchObject({ type: 'sync_completed' });
    expect(await countRecords(type, fake())).toEqual(clean);
    expect(await logMessages(quarry, type, 'WARNING')).toEqual(expect.arrayContaining([
      expect.stringMatching(/answered 429.*retrying in 1\.0 s/), expect.stringMatching(/answered 500/),
    ]));
    // The request the 429 answered is asked again no sooner than Retry-After allows.
    const seen = api.requests.slice(before);
    const limited = seen.findIndex((request) => request.answeredWithFault === 429);
    const sameAs = (request: SeenRequest): boolean => request.method === seen[limited]!.method && request.path === seen[limited]!.path
      && request.query.toString() === seen[limited]!.query.toString() && JSON.stringify(request.body) === JSON.stringify(seen[limited]!.body);
    const retried = seen.slice(limited + 1).find(sameAs);
    expect(retried).toBeDefined();
    expect(retried!.receivedAt - seen[limited]!.receivedAt).toBeGreaterThanOrEqual(1000 - TIMER_SLACK_MS);
  });
});

describe.each(VENDORS.filter((vendor) => vendor.anonymous !== true).map((vendor) => vendor.type))('the connector engine refused by %s', (type) => {
  const fake = (): CredentialedFake => fakes.get(type) as CredentialedFake;

  it('fails with one line naming the refusal when the credential is revoked, never showing a secret, and keeps the loaded data', async () => {
    if ((await countRecords(type, fake()).catch(() => undefined)) === undefined) {
      expect(await sync(type)).toMatchObject({ type: 'sync_completed' }); // run alone (-t), the retry test has not loaded it
    }
    const before = await countRecords(type, fake());
    const restore = fake().revoke();
    try {
      const end = await sync(type);
      expect(end.type).toBe('sync_failed');
      const error = end.type === 'sync_failed' ? end.error : '';
      expect(error).not.toContain('\n');
      const refusal = fake().refusal(fake().api.url);
      if (typeof refusal === 'string') expect(error).toBe(refusal);
      else expect(error).toMatch(refusal);
      for (const secret of Object.values(fake().env)) expect(error).not.toContain(secret);
      expect(await logMessages(quarry, type, 'ERROR')).toEqual([error]);
      expect(await countRecords(type, fake())).toEqual(before);
      const sources = await quarry.request('GET', '/api/sources', { as: 'viewer' });
      expect((sources.json as { name: string; status: string }[]).find((source) => source.name === type)).toMatchObject({ status: 'failed' });
    } finally {
      restore();
    }
  });
});
