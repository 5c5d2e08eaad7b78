import type { FastifyRequest } from 'fastify';
import { startFakeApi, type FakeApi } from '../support/fake-api.ts';
import type { ContractVendor } from './contract-vendor.ts';

/** One ad's figures on one day, as Insights reports them (numbers as text). */
export interface InsightFact {
  ad_id: string;
  date: string;
  impressions: number;
  clicks: number;
  spend: number;
  link_clicks: number;
}

export interface MetaAdAccount {
  accessToken: string;
  accountId: string;
  campaigns: Record<string, unknown>[];
  adsets: Record<string, unknown>[];
  ads: Record<string, unknown>[];
  adcreatives: Record<string, unknown>[];
  insights: InsightFact[];
  /** Ad id → its leads. */
  leads: Map<string, Record<string, unknown>[]>;
}

function graphError(message: string, type: string, code: number) {
  return { error: { message, type, code, fbtrace_id: 'AbCdEfGhIjK' } };
}

/** Only the requested fields (`creative{id}` picks inside an object), and always `id`, as Graph returns them. */
function withFields(record: Record<string, unknown>, fields: string | undefined): Record<string, unknown> {
  const names = (fields ?? 'id').split(/,(?![^{]*})/);
  const out: Record<string, unknown> = { id: record.id };
  for (const name of names) {
    const nested = /^(\w+)\{(.+)\}$/.exec(name);
    const key = nested?.[1] ?? name;
    const value = record[key];
    if (value === undefined) continue;
    out[key] = nested === null ? value : withFields(value as Record<string, unknown>, nested[2]);
  }
  return out;
}

/**
 * Meta's Marketing API (Graph API) for one ad account: `access_token`, edges with `fields` and `limit`,
 * cursor paging with `paging.cursors.after` and an absolute `paging.next`, Insights with `time_range`
 * and `time_increment=1`, and Graph's `{error: {message, type, code}}` bodies.
 */
export async function startMetaMarketingFake(account: MetaAdAccount): Promise<FakeApi> {
  const api: FakeApi = await startFakeApi((app) => {
    const page = (request: FastifyRequest, all: Record<string, unknown>[]) => {
      const query = request.query as Record<string, string | undefined>;
      const limit = Math.min(Number(query.limit ?? 25), 500);
      const offset = query.after === undefined ? 0 : Number(Buffer.from(query.after, 'base64url').toString('utf8'));
      const data = all.slice(offset, offset + limit);
      const cursor = (at: number) => Buffer.from(String(at)).toString('base64url');
      const paging: Record<string, unknown> = { cursors: { before: cursor(offset), after: cursor(offset + data.length) } };
      if (offset + limit < all.length) {
        const next = new URL(`${api.url}${new URL(request.url, api.url).pathname}`);
        for (const [name, value] of Object.entries(query)) if (name !== 'after' && value !== undefined) next.searchParams.set(name, value);
        next.searchParams.set('after', cursor(offset + data.length));
        paging.next = next.href;
      }
      return { data, paging };
    };

    app.addHook('preHandler', async (request, reply) => {
      const token = (request.query as Record<string, string | undefined>).access_token;
      if (token === account.accessToken) return undefined;
      return reply.code(400).send(token === undefined
        ? graphError('An active access token must be used to query information about the current user.', 'OAuthException', 2500)
        : graphError('Invalid OAuth access token - Cannot parse access token', 'OAuthException', 190));
    });

    app.get('/:version/:node/:edge', (request, reply) => {
      const { node, edge } = request.params as { node: string; edge: string };
      const query = request.query as Record<string, string | undefined>;
      if (edge === 'leads') {
        const leads = account.leads.get(node);
        if (leads === undefined) return reply.code(400).send(graphError(`Unsupported get request. Object with ID '${node}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`, 'GraphMethodException', 100));
        return page(request, leads.map((lead) => withFields(lead, query.fields)));
      }
      if (node !== account.accountId) {
        return reply.code(400).send(graphError(`Unsupported get request. Object with ID '${node}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`, 'GraphMethodException', 100));
      }
      if (edge === 'insights') {
        const range = JSON.parse(query.time_range ?? 'null') as { since: string; until: string } | null;
        if (range === null || query.time_increment !== '1' || query.level !== 'ad') {
          return reply.code(400).send(graphError('(#100) This fake answers level=ad, time_increment=1 with a time_range', 'OAuthException', 100));
        }
        const rows = account.insights
          .filter((fact) => fact.date >= range.since && fact.date <= range.until)
          .sort((a, b) => a.date.localeCompare(b.date) || a.ad_id.localeCompare(b.ad_id))
          .map((fact) => {
            const ad = account.ads.find((candidate) => candidate.id === fact.ad_id) ?? {};
            return {
              account_id: account.accountId.slice('act_'.length), account_currency: 'EUR',
              campaign_id: ad.campaign_id, adset_id: ad.adset_id, ad_id: fact.ad_id, ad_name: ad.name,
              impressions: String(fact.impressions), clicks: String(fact.clicks), spend: fact.spend.toFixed(2),
              actions: [{ action_type: 'link_click', value: String(fact.link_clicks) }, { action_type: 'page_engagement', value: String(fact.clicks) }],
              date_start: fact.date, date_stop: fact.date,
            };
          });
        return page(request, rows);
      }
      const objects = ({ campaigns: account.campaigns, adsets: account.adsets, ads: account.ads, adcreatives: account.adcreatives } as Record<string, Record<string, unknown>[] | undefined>)[edge];
      if (objects === undefined) return reply.code(400).send(graphError(`(#100) Tried accessing nonexisting field (${edge})`, 'OAuthException', 100));
      return page(request, objects.map((object) => withFields(object, query.fields)));
    });
  });
  return api;
}

/** An ad account of 150 campaigns, read 100 a page. */
export const metaMarketingContract: ContractVendor = {
  type: 'social_ads',
  async start() {
    const time = '2026-01-05T10:00:00+0000';
    const account: MetaAdAccount = {
      accessToken: 'EAAB-contract', accountId: 'act_1029384756', adsets: [], ads: [], adcreatives: [], insights: [], leads: new Map(),
      campaigns: Array.from({ length: 150 }, (_, index) => ({ id: `23850000${String(index + 1)}`, name: `Campaign ${String(index + 1)}`, status: 'ACTIVE', created_time: time, updated_time: time })),
    };
    const api = await startMetaMarketingFake(account);
    return {
      api, env: { SOCIAL_ADS_ACCESS_TOKEN: 'EAAB-contract' }, pagedPath: '/v23.0/act_1029384756/campaigns', table: 'campaigns', key: 'id',
      section: ['social_ads:', '  account_id: act_1029384756', '  resources: [campaigns]', `  base_url: ${api.url}`],
      revoke() {
        account.accessToken = 'EAAB-expired';
        return () => { account.accessToken = 'EAAB-contract'; };
      },
      refusal: (url) => `GET ${url}/v23.0/act_1029384756/campaigns answered 400 Bad Request: Invalid OAuth access token - Cannot parse access token`,
    };
  },
};
