import type { FastifyReply } from 'fastify';
import { records, startFakeApi, type FakeApi } from '../support/fake-api.ts';
import type { ContractVendor } from './contract-vendor.ts';

export interface MatomoVisit {
  idSite: number;
  idVisit: number;
  visitorId: string;
  serverDate: string;
  firstActionTimestamp: number;
  lastActionTimestamp: number;
  visitDuration: number;
  referrerType: string;
  country: string;
  deviceType: string;
  actionDetails: { type: string; url: string; pageTitle: string; timestamp: number; timeSpent: number }[];
}

export interface MatomoData {
  visits: MatomoVisit[];
}

export interface FakeMatomo {
  readonly api: FakeApi;
  /** The installation's root, a source's base_url. */
  readonly baseUrl: string;
  tokenAuth: string;
  data: MatomoData;
  close(): Promise<void>;
}

const DAY_MS = 86_400_000;

export function matomoVisit(n: number, startMs: number, actions = 1 + (n % 3)): MatomoVisit {
  const first = Math.floor(startMs / 1000);
  return {
    idSite: 1, idVisit: n, visitorId: `a1b2c3d4e5f6${String(n % 50).padStart(4, '0')}`, serverDate: new Date(startMs).toISOString().slice(0, 10),
    firstActionTimestamp: first, lastActionTimestamp: first + (actions - 1) * 30, visitDuration: (actions - 1) * 30,
    referrerType: n % 2 === 0 ? 'search' : 'direct', country: n % 3 === 0 ? 'Germany' : 'France', deviceType: 'Desktop',
    actionDetails: records(actions, (a) => ({ type: 'action', url: `https://shop.example/page${String(a)}`, pageTitle: `Page ${String(a)}`, timestamp: first + (a - 1) * 30, timeSpent: 30 })),
  };
}

type Query = Record<string, string | undefined>;

/**
 * A Matomo Reporting API on loopback at `/index.php?module=API`: `token_auth` in the query, errors as
 * HTTP 200 `{result: "error"}`, `period=day` ranges keyed by date (`[]` for a day without data),
 * Live visits with `minTimestamp`, `filter_limit`/`filter_offset` and `filter_sort_order`.
 */
export async function startFakeMatomo(options: { tokenAuth: string; siteId: number; today: string; visits: MatomoVisit[] }): Promise<FakeMatomo> {
  const state = { tokenAuth: options.tokenAuth, data: { visits: options.visits } };
  const error = (reply: FastifyReply, message: string) => reply.send({ result: 'error', message });
  const dayOf = (text: string): string => (text === 'today' ? options.today : text === 'yesterday' ? new Date(Date.parse(options.today) - DAY_MS).toISOString().slice(0, 10) : text);
  const daysIn = (range: string): string[] | undefined => {
    const [from, to] = range.split(',').map(dayOf);
    if (from === undefined || to === undefined || Number.isNaN(Date.parse(from)) || Number.isNaN(Date.parse(to))) return undefined;
    const days: string[] = [];
    for (let at = Date.parse(from); at <= Date.parse(to); at += DAY_MS) days.push(new Date(at).toISOString().slice(0, 10));
    return days;
  };
  const visitsOn = (day: string) => state.data.visits.filter((visit) => visit.serverDate === day);

  const reports: Record<string, (day: string) => unknown> = {
    'VisitsSummary.get': (day) => {
      const visits = visitsOn(day);
      if (visits.length === 0) return [];
      const actions = visits.reduce((sum, visit) => sum + visit.actionDetails.length, 0);
      return {
        nb_uniq_visitors: new Set(visits.map((visit) => visit.visitorId)).size, nb_visits: visits.length, nb_actions: actions,
        max_actions: Math.max(...visits.map((visit) => visit.actionDetails.length)), bounce_count: visits.filter((visit) => visit.actionDetails.length === 1).length,
        sum_visit_length: visits.reduce((sum, visit) => sum + visit.visitDuration, 0), bounce_rate: `${String(Math.round((100 * visits.filter((visit) => visit.actionDetails.length === 1).length) / visits.length))}%`,
      };
    },
    'Actions.getPageUrls': (day) => {
      const hits = new Map<string, { label: string; url: string; nb_hits: number; nb_visits: number }>();
      for (const visit of visitsOn(day)) {
        for (const action of visit.actionDetails) {
          const label = new URL(action.url).pathname;
          const row = hits.get(label) ?? { label, url: action.url, nb_hits: 0, nb_visits: 0 };
          row.nb_hits += 1;
          hits.set(label, row);
        }
        for (const label of new Set(visit.actionDetails.map((action) => new URL(action.url).pathname))) hits.get(label)!.nb_visits += 1;
      }
      return [...hits.values()];
    },
  };

  const api = await startFakeApi((app) => {
    app.get('/index.php', (request, reply) => {
      const query = request.query as Query;
      if (query.module !== 'API') return reply.type('text/html').send('<html>Matomo</html>');
      if (query.token_auth !== state.tokenAuth || Number(query.idSite) !== options.siteId) {
        return error(reply, `You can't access this resource as it requires 'view' access for the website id = ${query.idSite ?? ''}.`);
      }
      const days = daysIn(query.date ?? '');
      if (days === undefined) return error(reply, `The date '${query.date ?? ''}' is not a correct date range.`);
      const method = query.method ?? '';
      if (method === 'Live.getLastVisitsDetails') {
        const min = Number(query.minTimestamp ?? 0);
        const direction = query.filter_sort_order === 'asc' ? 1 : -1;
        const visits = state.data.visits
          .filter((visit) => days.includes(visit.serverDate) && visit.lastActionTimestamp > min)
          .sort((a, b) => direction * (a.firstActionTimestamp - b.firstActionTimestamp || a.idVisit - b.idVisit));
        const offset = Number(query.filter_offset ?? 0);
        const limit = Number(query.filter_limit ?? 100);
        return visits.slice(offset, offset + limit);
      }
      const report = reports[method];
      if (report === undefined) return error(reply, `The method '${method}' does not exist or is not available in the module '\\Piwik\\Plugins\\API'.`);
      if (query.period !== 'day') return error(reply, 'The fake serves period=day reports only');
      return Object.fromEntries(days.map((day) => [day, report(day)]));
    });
  });

  return {
    api,
    baseUrl: api.url,
    get tokenAuth() { return state.tokenAuth; },
    set tokenAuth(value) { state.tokenAuth = value; },
    get data() { return state.data; },
    set data(value) { state.data = value; },
    close: () => api.close(),
  };
}

/** A site with 250 visits in March 2024, ten a day, read 100 a page. */
export const matomoContract: ContractVendor = {
  type: 'self_hosted_analytics',
  async start() {
    const token = 'matomo-contract-token';
    const visits = records(250, (n) => matomoVisit(n, Date.UTC(2024, 2, 1) + Math.floor((n - 1) / 10) * DAY_MS + (n % 10) * 3_600_000));
    const fake = await startFakeMatomo({ tokenAuth: token, siteId: 3, today: '2024-03-31', visits });
    return {
      api: fake.api, env: { SELF_HOSTED_ANALYTICS_TOKEN: token }, pagedPath: '/index.php', table: 'visits', key: 'idVisit',
      section: ['generic_config:', `  base_url: "${fake.baseUrl}"`, '  site_id: 3', '  start_date: 2024-03-01', '  resources: [visits]'],
      revoke() {
        fake.tokenAuth = 'a-new-token';
        return () => { fake.tokenAuth = token; };
      },
      refusal: () => "The Matomo API refused Live.getLastVisitsDetails: You can't access this resource as it requires 'view' access for the website id = 3.",
    };
  },
};
