import { z } from 'zod';
import type { Connector } from '../connector.ts';
import { jsonLink, jwtBearerAuth, requireJsonEnv, restSessionConnector, singlePage, valueAt, type HttpClient, type HttpRequest, type ServiceAccountAuth } from '../rest/index.ts';
import { SyncFailedError } from '../sync-failed-error.ts';
import { EnvVarName, HttpUrl, resourceList, defineSourceType } from '../type-definition/index.ts';

const RESOURCES = {
  default: ['account', 'contact', 'lead', 'opportunity', 'campaign'],
  available: [
    'account', 'contact', 'lead', 'opportunity', 'campaign', 'task', 'event', 'sf_user', 'user_role', 'product_2',
  ],
} as const;

/** The spec shows only resources; service-account credentials come, as for the other types, through an env var. */
export const CrmBSection = z.strictObject({
  resources: resourceList(RESOURCES),
  credentials_env: EnvVarName.default('CRM_B_CREDENTIALS'),
  /** The REST API version (`v62.0`); Salesforce keeps old versions for years. */
  api_version: z.string().regex(/^v\d+\.\d$/, { error: 'expected a REST API version like v62.0' }).default('v62.0'),
  base_url: HttpUrl.optional(),
});
export type CrmBSection = z.output<typeof CrmBSection>;
type CrmBResource = CrmBSection['resources'][number];

const LOGIN_URL = 'https://login.salesforce.com';
const CURSOR_FIELD = 'SystemModstamp';

const S_OBJECTS: Readonly<Record<CrmBResource, string>> = {
  account: 'Account', contact: 'Contact', lead: 'Lead', opportunity: 'Opportunity', campaign: 'Campaign',
  task: 'Task', event: 'Event', sf_user: 'User', user_role: 'UserRole', product_2: 'Product2',
};

/** What a connected app's JWT bearer flow needs: its consumer key, the integration user, the certificate's private key. */
const SalesforceCredentials = z.object({
  client_id: z.string().min(1),
  username: z.string().min(1),
  private_key: z.string().min(1),
  /** `https://test.salesforce.com` for sandboxes, or the org's My Domain. */
  login_url: z.url().default(LOGIN_URL),
});

function salesforceAuth(section: CrmBSection, env: Readonly<Record<string, string | undefined>>, http: HttpClient): ServiceAccountAuth {
  const name = section.credentials_env;
  const credentials = requireJsonEnv(env, name, 'Salesforce connected app credentials (JSON with client_id, username, private_key, login_url)', SalesforceCredentials);
  const loginUrl = credentials.login_url.replace(/\/+$/, '');
  return jwtBearerAuth({
    tokenUrl: `${loginUrl}/services/oauth2/token`, audience: loginUrl, privateKey: credentials.private_key,
    issuer: credentials.client_id, subject: credentials.username, describedAs: `the Salesforce credentials in ${name}`,
  }, http);
}

/** Every field the describe call lists, except binary ones, which SOQL returns only as links. */
function queryableFields(describe: Record<string, unknown>): string[] {
  const fields = (valueAt(describe, 'fields') ?? []) as { name: string; type: string }[];
  return fields.filter((field) => field.type !== 'base64').map((field) => field.name);
}

/** Each record's `attributes` (its type and API URL) says nothing the table does not. */
function withoutAttributes(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([field]) => field !== 'attributes'));
}

function soql(fields: readonly string[], sObject: string, since: string | number | undefined): string {
  const where = since === undefined ? '' : ` WHERE ${CURSOR_FIELD} > ${new Date(since).toISOString().replace(/\.\d{3}Z$/, 'Z')}`;
  return `SELECT ${fields.join(', ')} FROM ${sObject}${where} ORDER BY ${CURSOR_FIELD} ASC`;
}

/** `crm_b`: Salesforce REST API through a connected app's JWT bearer flow; SOQL over every field of each sObject. */
const crmBConnector: Connector = {
  async extract(context, sink) {
    let auth: ServiceAccountAuth | undefined;
    await restSessionConnector<CrmBSection>({
      // Unknown until the token answers with the org's instance_url: every path below is absolute.
      baseUrl: () => LOGIN_URL,
      auth: (section, env, http) => (auth = salesforceAuth(section, env, http)),
      async extract(session, section) {
        const token = await (auth as ServiceAccountAuth).token();
        const instanceUrl = section.base_url ?? valueAt(token.response, 'instance_url');
        if (typeof instanceUrl !== 'string') throw new SyncFailedError('The Salesforce token response has no instance_url');
        const api = `${instanceUrl.replace(/\/+$/, '')}/services/data/${section.api_version}`;
        for (const resource of section.resources) {
          const sObject = S_OBJECTS[resource];
          const [describe] = await session.collect({
            name: `${resource}_describe`, path: `${api}/sobjects/${sObject}/describe`, dataSelector: '$', paginator: singlePage,
          }, { stage: false });
          const fields = queryableFields(describe ?? {});
          await session.extract({
            name: resource,
            // queryAll includes deleted records (IsDeleted = true), so a merge learns of deletions too.
            path: `${api}/queryAll`,
            params: { q: soql(fields, sObject, undefined) },
            dataSelector: 'records',
            paginator: jsonLink('nextRecordsUrl'),
            primaryKey: ['Id'],
            incremental: {
              cursorPath: CURSOR_FIELD,
              apply: (request: HttpRequest, since) => { request.url.searchParams.set('q', soql(fields, sObject, since)); },
            },
            mapRecord: withoutAttributes,
          });
        }
      },
    }).extract(context, sink);
  },
};

export const crmBType = defineSourceType({
  key: 'crm_b', category: 'Business & CRM', authType: 'Service Account', wizard: true, incremental: true,
  section: 'own', schema: CrmBSection,
  resources: RESOURCES,
  connector: crmBConnector,
});
