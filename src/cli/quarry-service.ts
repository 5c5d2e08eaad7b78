import WebSocket from 'ws';
import { projectPaths } from '../config/index.ts';
import type { QuarryEvent, QuarryEventType } from '../events/index.ts';
import { runningServer } from '../os/index.ts';
import { CliError } from './cli-error.ts';

/** How long a request to the running Quarry may take before the command gives up on it. */
const REQUEST_TIMEOUT_MS = 30_000;

/** The running `quarry start` of a project, and the API key a command reaches it with. */
export interface QuarryService {
  /** `http://127.0.0.1:8800`, from the server's own record of where it listens. */
  readonly url: string;
  readonly apiKey: string;
}

/**
 * The running Quarry serving the project when there is one and QUARRY_API_KEY holds a key to reach it with: a
 * command then asks it (its warm dbt, its pooled readers) instead of opening the project beside it.
 */
export function quarryServiceFor(project: string, env: NodeJS.ProcessEnv): QuarryService | undefined {
  const apiKey = env.QUARRY_API_KEY;
  if (apiKey === undefined || apiKey === '') return undefined;
  const server = runningServer(projectPaths(project));
  return server === undefined || server.localUrl === '' ? undefined : { url: server.localUrl, apiKey };
}

/** Calls the API; an answer that is no success becomes a CliError with its detail. */
export async function callService<T>(service: QuarryService, method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`${service.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${service.apiKey}`, accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  } catch (error) {
    throw new CliError(`The running Quarry at ${service.url} did not answer: ${error instanceof Error ? error.message : String(error)}`);
  }
  const answer = await response.json().catch(() => undefined) as ({ detail?: string } & T) | undefined;
  if (!response.ok || answer === undefined) throw new CliError(answer?.detail ?? `The running Quarry answered ${String(response.status)}`);
  return answer;
}

/**
 * Follows the service's live events of the given types (its /ws feed, with the API key); resolves once the feed is
 * open and filtered, with what closes it. The feed is at most once: a command learns how things ended by asking.
 */
export async function followServiceEvents<Type extends QuarryEventType>(
  service: QuarryService, types: readonly Type[], onEvent: (event: Extract<QuarryEvent, { type: Type }>) => void,
): Promise<() => void> {
  const socket = new WebSocket(`${service.url.replace(/^http/, 'ws')}/ws`, { headers: { authorization: `Bearer ${service.apiKey}` } });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => { resolve(); });
    socket.once('error', (error) => { reject(new CliError(`The running Quarry's event feed could not be opened: ${error.message}`)); });
    socket.once('unexpected-response', (_request, response) => {
      reject(new CliError(`The running Quarry refused its event feed (HTTP ${String(response.statusCode)}): is QUARRY_API_KEY a key of this project?`));
    });
  });
  socket.on('error', () => undefined); // a feed that breaks later only stops the progress it showed
  socket.send(JSON.stringify({ action: 'subscribe', types }));
  socket.on('message', (data) => {
    const event = Buffer.isBuffer(data) ? parsedEvent(data.toString('utf8')) : undefined;
    if (event !== undefined && (types as readonly string[]).includes(event.type)) onEvent(event as Extract<QuarryEvent, { type: Type }>);
  });
  return () => { socket.close(); };
}

function parsedEvent(text: string): QuarryEvent | undefined {
  try {
    return JSON.parse(text) as QuarryEvent;
  } catch {
    return undefined;
  }
}
