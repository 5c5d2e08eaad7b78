import http from 'node:http';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
}

/** One HTTP request sent from a chosen local address (127.0.0.2 and so on), to test per-client rules. */
export function requestFrom(localAddress: string, url: string, options: { method?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<RawResponse> {
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const request = http.request(url, {
      method: options.method ?? 'GET',
      localAddress,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers },
    }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => { text += chunk; });
      response.on('end', () => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = text;
        }
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: parsed });
      });
    });
    request.on('error', reject);
    request.end(body);
  });
}
