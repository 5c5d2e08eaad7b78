import { z } from 'zod';
import type { DateWindow } from '../date-window.ts';
import { bearerAuth, dateRangeOf, endOfDay, requireEnv, restSourceConnector, unixSecondsOf, withParam, type Paginator, type QueryValue, type RestResource } from '../rest/index.ts';
import { boundsInOrder, CalendarDate, EnvVarName, HttpUrl, resourceList, defineSourceType } from '../type-definition/index.ts';

const RESOURCES = {
  default: [
    'customers', 'charges', 'invoices', 'subscriptions', 'products', 'prices', 'payment_intents', 'balance_transactions', 'events',
  ],
  available: [
    'customers', 'charges', 'invoices', 'subscriptions', 'products', 'prices', 'payment_intents', 'balance_transactions', 'events',
  ],
} as const;

export const PaymentsSection = z.strictObject({
  payments_secret_key_env: EnvVarName.default('PAYMENTS_API_KEY'),
  /** Absent means every endpoint. */
  endpoints: resourceList(RESOURCES),
  start_date: CalendarDate.optional(),
  end_date: CalendarDate.optional(),
  base_url: HttpUrl.optional(),
}).refine(...boundsInOrder('start_date', 'end_date'));
export type PaymentsSection = z.output<typeof PaymentsSection>;
type Endpoint = PaymentsSection['endpoints'][number];

const PAGE_SIZE = 100;

/** Filters an endpoint needs beyond the date range: Stripe leaves canceled subscriptions out unless asked. */
const ENDPOINT_PARAMS: Partial<Record<Endpoint, Readonly<Record<string, QueryValue>>>> = {
  subscriptions: { status: 'all' },
};

/** Stripe lists newest first; `has_more` says another page follows, fetched with `starting_after` = the last object's id. */
const startingAfterLastId: Paginator = {
  next(request, response, records) {
    const hasMore = (response.body as { has_more?: unknown } | null)?.has_more === true;
    const last = records.at(-1) as { id?: unknown } | undefined;
    return hasMore && typeof last?.id === 'string' ? withParam(request, 'starting_after', last.id) : undefined;
  },
};

function endpointResource(endpoint: Endpoint, section: PaymentsSection, window: DateWindow | undefined): RestResource {
  const { startDate, endDate } = dateRangeOf(section, window);
  const params: Record<string, QueryValue> = { limit: PAGE_SIZE, ...ENDPOINT_PARAMS[endpoint] };
  if (endDate !== undefined) params['created[lte]'] = Math.floor(endOfDay(endDate).getTime() / 1000);
  return {
    name: endpoint,
    path: `/v1/${endpoint}`,
    params,
    dataSelector: 'data',
    paginator: startingAfterLastId,
    primaryKey: ['id'],
    // `gte`, not `gt`: objects created in the cursor's second after the last sync are not lost; the merge drops the repeat.
    incremental: {
      cursorPath: 'created', param: 'created[gte]', format: 'unix',
      initialValue: startDate === undefined ? undefined : unixSecondsOf(startDate),
    },
  };
}

/** `payments`: Stripe's API v1 list endpoints, read with a secret (or restricted) key. */
const paymentsConnector = restSourceConnector<PaymentsSection>({
  baseUrl: () => 'https://api.stripe.com',
  auth: (section, env) => bearerAuth(requireEnv(env, section.payments_secret_key_env, 'a Stripe secret or restricted key')),
  resources: (section, { window }) => section.endpoints.map((endpoint) => endpointResource(endpoint, section, window)),
});

export const paymentsType = defineSourceType({
  key: 'payments', category: 'E-commerce & Payment', authType: 'API Key', wizard: true, incremental: true,
  section: 'own', schema: PaymentsSection,
  resources: RESOURCES,
  connector: paymentsConnector,
});
