import type { ExtractContext } from '../connector.ts';
import { bearerAuth, HttpClient, noAuth, requireEnv, type HttpRequest } from '../rest/index.ts';

/** A file published at a URL, behind a bearer token when the source names the variable holding one. */
export interface PublishedFile {
  readonly url: string;
  readonly token_env?: string | undefined;
}

/**
 * The GET of a published file, carrying the token when there is one, and the client that sends it with the
 * engine's timeout and retries (each retry logged as a WARNING).
 */
export async function publishedFileRequest(context: ExtractContext, file: PublishedFile, accept: string): Promise<{ http: HttpClient; request: HttpRequest }> {
  const auth = file.token_env === undefined ? noAuth : bearerAuth(requireEnv(context.env, file.token_env, 'a bearer token for the file'));
  const http = new HttpClient({ signal: context.signal, outbound: context.outbound, onRetry: (message) => { context.log('WARNING', message); } });
  const request: HttpRequest = { url: new URL(file.url), method: 'GET', headers: { accept } };
  await auth.apply(request);
  return { http, request };
}
