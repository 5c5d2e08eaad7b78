import type { Connector, CursorState, ExtractContext, RecordSink } from '../connector.ts';
import type { DateWindow } from '../date-window.ts';
import { sectionOf } from '../type-definition/index.ts';
import type { AuthStrategy } from './auth.ts';
import { HttpClient } from './http-client.ts';
import { extractResource, type RestResource } from './extract-resource.ts';

type Env = Readonly<Record<string, string | undefined>>;

/** Where a REST source's requests go and how they carry their credentials, from the source's section. */
export interface RestEndpointDefinition<Section> {
  /** The vendor's API root, used unless the section sets `base_url`. */
  readonly baseUrl: (section: Section) => string;
  readonly auth: (section: Section, env: Env, http: HttpClient) => AuthStrategy;
  /** How many requests of one resource may be in flight (pages fetched ahead where the paginator allows); 1 when absent. */
  readonly concurrency?: (section: Section) => number;
}

/** A source type that reads a vendor's REST API: its root, its credentials and its resources, from the source's section. */
export interface RestSourceDefinition<Section> extends RestEndpointDefinition<Section> {
  readonly resources: (
    section: Section, context: { readonly now: Date; readonly fullRefresh: boolean; readonly window: DateWindow | undefined },
  ) => readonly RestResource[];
}

/** A source type whose requests depend on earlier answers (one request per channel a first request found). */
export interface RestSessionDefinition<Section> extends RestEndpointDefinition<Section> {
  readonly extract: (session: RestSession, section: Section, context: ExtractContext) => Promise<void>;
}

/** One sync's view of a vendor's API: its root, its credentials and one HTTP client shared by every request. */
export interface RestSession {
  /**
   * Stages every page of a resource and returns how many records it held. A `cursorScope` keeps a
   * cursor per scope when several requests feed one table (one per channel, say).
   */
  extract(resource: RestResource, options?: { readonly cursorScope?: string }): Promise<number>;
  /** Fetches every page of a resource and returns its records, staging them too unless `stage` is false. */
  collect(resource: RestResource, options?: { readonly stage?: boolean }): Promise<Record<string, unknown>[]>;
}

export function restSourceConnector<Section>(definition: RestSourceDefinition<Section>): Connector {
  return restSessionConnector<Section>({
    ...definition,
    async extract(session, section, context) {
      for (const resource of definition.resources(section, { now: context.now, fullRefresh: context.fullRefresh, window: context.window })) {
        context.signal.throwIfAborted();
        await session.extract(resource);
      }
    },
  });
}

export function restSessionConnector<Section>(definition: RestSessionDefinition<Section>): Connector {
  return {
    async extract(context, sink) {
      const section = sectionOf(context.source) as Section;
      await definition.extract(openRestSession(context, sink, section, definition), section, context);
    },
  };
}

function openRestSession<Section>(
  context: ExtractContext, sink: RecordSink, section: Section, definition: RestEndpointDefinition<Section>,
): RestSession {
  const timeoutSeconds = (section as { timeout_seconds?: unknown }).timeout_seconds;
  const http = new HttpClient({
    signal: context.signal,
    outbound: context.outbound,
    onRetry: (message) => { context.log('WARNING', message); },
    ...(typeof timeoutSeconds === 'number' ? { timeoutMs: timeoutSeconds * 1000 } : {}),
  });
  const overridden = (section as { base_url?: unknown }).base_url;
  const baseUrl = typeof overridden === 'string' ? overridden : definition.baseUrl(section);
  const auth = definition.auth(section, context.env, http);
  const concurrency = definition.concurrency?.(section) ?? 1;
  const run = async (resource: RestResource, into: RecordSink, state: CursorState): Promise<number> => {
    context.signal.throwIfAborted();
    const records = await extractResource(resource, {
      baseUrl, auth, http, sink: into, state, fullRefresh: context.fullRefresh, lookbackDays: context.source.lookback_days, concurrency, log: context.log,
    });
    context.log('INFO', `Fetched ${String(records)} record(s) of ${resource.name}`);
    return records;
  };
  return {
    extract: (resource, options) => run(resource, sink, scopedState(context.state, options?.cursorScope)),
    async collect(resource, options) {
      const kept: Record<string, unknown>[] = [];
      await run(resource, keepingSink(options?.stage === false ? undefined : sink, kept), context.state);
      return kept;
    },
  };
}

function scopedState(state: CursorState, scope: string | undefined): CursorState {
  if (scope === undefined) return state;
  return { get: (resource) => state.get(`${resource}/${scope}`), set: (resource, value) => { state.set(`${resource}/${scope}`, value); } };
}

/** A sink that keeps every record it is given, passing them on to `sink` when there is one. */
function keepingSink(sink: RecordSink | undefined, kept: Record<string, unknown>[]): RecordSink {
  return {
    table(spec) {
      const writer = sink?.table(spec);
      return {
        async write(records) {
          kept.push(...records);
          await writer?.write(records);
        },
        addFile(file) { writer?.addFile(file); },
      };
    },
  };
}
