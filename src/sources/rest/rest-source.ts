import type { SourceConfig } from '../../config/index.ts';
import { SOURCE_TYPES } from '../../config/index.ts';
import type { Connector, ExtractContext, RecordSink } from '../connector.ts';
import type { AuthStrategy } from './auth.ts';
import { HttpClient } from './http-client.ts';
import { extractResource, type ResourceContext, type RestResource } from './extract-resource.ts';

type Env = Readonly<Record<string, string | undefined>>;

/** A source type that reads a vendor's REST API: its root, its credentials and its resources, from the source's section. */
export interface RestSourceDefinition<Section> {
  /** The vendor's API root, used unless the section sets `base_url`. */
  readonly baseUrl: (section: Section) => string;
  readonly auth: (section: Section, env: Env, http: HttpClient) => AuthStrategy;
  readonly resources: (section: Section, context: { readonly now: Date; readonly fullRefresh: boolean }) => readonly RestResource[];
}

/** The section holding a source's own fields (`payments:`, `generic_config:`, ...). */
export function sectionOf(source: SourceConfig): Readonly<Record<string, unknown>> {
  return (source as unknown as Record<string, Readonly<Record<string, unknown>>>)[SOURCE_TYPES[source.type].section] ?? {};
}

/** What a connector's resources share in one sync: the section, and one HTTP client, API root and set of credentials. */
export interface RestSession<Section> {
  readonly section: Section;
  readonly resources: ResourceContext;
}

/** Opens the shared parts of a sync; custom connectors whose requests depend on earlier answers start here. */
export function openRestSession<Section>(
  context: ExtractContext, sink: RecordSink, definition: Pick<RestSourceDefinition<Section>, 'baseUrl' | 'auth'>,
): RestSession<Section> {
  const section = sectionOf(context.source) as Section;
  const http = new HttpClient({ signal: context.signal, onRetry: (message) => { context.log('WARNING', message); } });
  const overridden = (section as { base_url?: unknown }).base_url;
  const baseUrl = typeof overridden === 'string' ? overridden : definition.baseUrl(section);
  const auth = definition.auth(section, context.env, http);
  return {
    section,
    resources: {
      baseUrl, auth, http, sink, state: context.state, fullRefresh: context.fullRefresh,
      lookbackDays: context.source.lookback_days, log: context.log,
    },
  };
}

/** Extracts one resource with the session's shared parts and logs how many records it had. */
export async function extractLogged(resource: RestResource, session: ResourceContext): Promise<number> {
  const records = await extractResource(resource, session);
  session.log('INFO', `Fetched ${String(records)} record(s) of ${resource.name}`);
  return records;
}

export function restSourceConnector<Section>(definition: RestSourceDefinition<Section>): Connector {
  return {
    async extract(context: ExtractContext, sink) {
      const { section, resources } = openRestSession(context, sink, definition);
      for (const resource of definition.resources(section, { now: context.now, fullRefresh: context.fullRefresh })) {
        context.signal.throwIfAborted();
        await extractLogged(resource, resources);
      }
    },
  };
}
