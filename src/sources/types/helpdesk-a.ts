import { z } from 'zod';
import type { DateWindow } from '../date-window.ts';
import { basicAuth, dateRangeOf, endOfDay, jsonLink, recordsWithin, requireEnv, restSourceConnector, valueAt, withParam, type Paginator, type RestResource } from '../rest/index.ts';
import { SyncFailedError } from '../sync-failed-error.ts';
import { boundsInOrder, CalendarDate, EnvVarName, requiredUnless, resourceList, Subdomain, genericConfig, defineSourceType } from '../type-definition/index.ts';

const RESOURCES = {
  default: ['tickets', 'ticket_fields'],
  available: ['tickets', 'ticket_fields', 'ticket_events', 'ticket_metric_events'],
} as const;

export const HelpdeskAConfig = genericConfig({
  subdomain: Subdomain.optional(),
  /** The agent the API token belongs to: the user name is `{email}/token`. */
  email: z.email({
    error: (issue) => (issue.code === 'invalid_format' ? `expected an email address, got ${JSON.stringify(issue.input)}` : undefined),
  }).optional(),
  api_token_env: EnvVarName.default('HELPDESK_A_API_TOKEN'),
  resources: resourceList(RESOURCES),
  start_date: CalendarDate.optional(),
  end_date: CalendarDate.optional(),
})
  .refine(...requiredUnless('subdomain', 'base_url'))
  .refine((config) => config.email !== undefined, { path: ['email'], error: 'required: the email of the agent the API token belongs to' })
  .refine(...boundsInOrder('start_date', 'end_date'));
export type HelpdeskAConfig = z.output<typeof HelpdeskAConfig>;
type HelpdeskAResource = HelpdeskAConfig['resources'][number];

/** The incremental exports' largest page. */
const EXPORT_PAGE_SIZE = 1000;
const LIST_PAGE_SIZE = 100;

/** The cursor-based ticket export: the next page is `cursor=after_cursor` until `end_of_stream`. */
const afterCursor: Paginator = {
  next(request, response) {
    const cursor = valueAt(response.body, 'after_cursor');
    if (valueAt(response.body, 'end_of_stream') === true || typeof cursor !== 'string') return undefined;
    const next = withParam(request, 'cursor', cursor);
    next.url.searchParams.delete('start_time');
    return next;
  },
};

/** Time-based exports always offer a `next_page` (to poll later); `end_of_stream` says whether to follow it now. */
const timeBasedNextPage: Paginator = {
  next(request, response, records) {
    return valueAt(response.body, 'end_of_stream') === true ? undefined : jsonLink('next_page').next(request, response, records);
  },
};

/** Cursor pagination of list endpoints: `page[after]` while `meta.has_more`. */
const pageAfter: Paginator = {
  next(request, response) {
    const cursor = valueAt(response.body, 'meta.after_cursor');
    if (valueAt(response.body, 'meta.has_more') !== true || typeof cursor !== 'string') return undefined;
    return withParam(request, 'page[after]', cursor);
  },
};

function exportResource(config: HelpdeskAConfig, window: DateWindow | undefined, options: {
  name: HelpdeskAResource; path: string; listKey: string; cursorPath: string; paginator: Paginator;
}): RestResource {
  const { startDate, endDate } = dateRangeOf(config, window);
  const endAt = endDate === undefined ? undefined : endOfDay(endDate);
  // Time-based exports start each page at the previous page's last time, so its last records come again.
  const seen = new Set<unknown>();
  const unseen = (list: unknown): unknown[] => (Array.isArray(list) ? list : []).filter((record) => {
    const id = valueAt(record, 'id');
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
  return {
    name: options.name,
    path: options.path,
    params: { per_page: EXPORT_PAGE_SIZE },
    dataSelector: (body) => unseen(recordsWithin(valueAt(body, options.listKey), options.cursorPath, { to: endAt })),
    paginator: options.paginator,
    primaryKey: ['id'],
    // start_time is required: a first sync without start_date exports from the beginning.
    incremental: { cursorPath: options.cursorPath, param: 'start_time', format: 'unix', initialValue: startDate ?? 0 },
  };
}

const RESOURCE_REQUESTS: Readonly<Record<HelpdeskAResource, (config: HelpdeskAConfig, window: DateWindow | undefined) => RestResource>> = {
  tickets: (config, window) => exportResource(config, window, {
    name: 'tickets', path: 'incremental/tickets/cursor.json', listKey: 'tickets', cursorPath: 'updated_at', paginator: afterCursor,
  }),
  ticket_events: (config, window) => exportResource(config, window, {
    name: 'ticket_events', path: 'incremental/ticket_events.json', listKey: 'ticket_events', cursorPath: 'timestamp', paginator: timeBasedNextPage,
  }),
  ticket_metric_events: (config, window) => exportResource(config, window, {
    name: 'ticket_metric_events', path: 'incremental/ticket_metric_events.json', listKey: 'ticket_metric_events', cursorPath: 'time',
    paginator: timeBasedNextPage,
  }),
  ticket_fields: () => ({
    name: 'ticket_fields', path: 'ticket_fields.json', params: { 'page[size]': LIST_PAGE_SIZE }, dataSelector: 'ticket_fields', paginator: pageAfter,
  }),
};

/** `helpdesk_a`: the Zendesk Support API, with an agent's email and API token. */
const helpdeskAConnector = restSourceConnector<HelpdeskAConfig>({
  baseUrl: (config) => `https://${config.subdomain ?? ''}.zendesk.com/api/v2`,
  auth: (config, env) => {
    if (config.email === undefined) throw new SyncFailedError('generic_config.email is not set: the API token is used as {email}/token');
    return basicAuth(`${config.email}/token`, requireEnv(env, config.api_token_env, 'a Zendesk API token'));
  },
  resources: (config, { window }) => config.resources.map((resource) => RESOURCE_REQUESTS[resource](config, window)),
});

export const helpdeskAType = defineSourceType({
  key: 'helpdesk_a', category: 'Business & CRM', authType: 'Basic', wizard: true, incremental: true,
  section: 'generic', schema: HelpdeskAConfig,
  resources: RESOURCES,
  connector: helpdeskAConnector,
});
