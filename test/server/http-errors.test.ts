import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';

/** Sends raw bytes and resolves with everything the server answered before closing. */
function rawExchange(url: string, payload: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => { received += chunk; });
    socket.on('end', () => { resolve(received); });
    socket.on('error', reject);
    socket.write(payload);
  });
}

function parseResponse(raw: string): { status: number; body: unknown } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1]);
  const body = raw.slice(raw.indexOf('\r\n\r\n') + 4);
  return { status, body: JSON.parse(body) };
}

describe('errors of the HTTP layer', () => {
  let quarry: TestQuarry;
  beforeAll(async () => {
    quarry = await startQuarry();
  });
  afterAll(async () => {
    await quarry.close();
  });

  it.each([
    ['a malformed request line', 'GARBAGE\r\n\r\n', 400, 'invalid_request'],
    ['an unknown method', 'BREW /api/status HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'invalid_request'],
    ['a bad Content-Length', 'POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n', 400, 'invalid_request'],
    ['oversized headers', `GET /api/status HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'headers_too_large'],
  ])('answers %s in the contract format and keeps serving', async (_name, payload, status, code) => {
    const answer = parseResponse(await rawExchange(quarry.url, payload));
    expect(answer.status).toBe(status);
    expect(answer.body).toEqual({ detail: expect.any(String), code });
    expect((await quarry.request('GET', '/api/status', { as: 'viewer' })).status).toBe(200);
  });

  it('answers a path the router refuses (too long a parameter, a bad escape) in the contract format', async () => {
    const cases = [
      ['DELETE', `/api/users/${'a'.repeat(600)}`, 'A path segment is too long'],
      ['GET', `/api/sources/${'%F0%9F%8F%BB'.repeat(300)}/details`, 'A path segment is too long'],
      ['DELETE', '/api/users/%E0%A4%A', 'The URL is not valid'],
    ] as const;
    for (const [method, path, detail] of cases) {
      const response = await quarry.request(method, path, { as: 'admin' });
      expect({ path, status: response.status, body: response.json }).toEqual({ path, status: 400, body: { detail, code: 'invalid_request' } });
    }
  });

  it('answers a method the path does not have with a JSON 404', async () => {
    const response = await quarry.request('PUT', '/api/status', { as: 'admin' });
    expect(response.status).toBe(404);
    expect(response.json.code).toBe('not_found');
  });

  it('answers an oversized JSON body with 413 and a bad one with 400', async () => {
    const huge = await quarry.request('POST', '/api/auth/api-keys', { as: 'viewer', body: JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) }) });
    expect(huge.status).toBe(413);
    expect(huge.json.code).toBe('upload_too_large');
    const wrongType = await quarry.request('POST', '/api/auth/api-keys', { as: 'viewer', body: 'name=x', headers: { 'content-type': 'text/csv' } });
    expect(wrongType.status).toBe(415);
    expect(wrongType.json).toEqual({ detail: 'This endpoint takes a body of type application/json', code: 'unsupported_media_type' });
  });

  it('never answers with a stack trace', async () => {
    const response = await quarry.request('POST', '/api/auth/login', { body: '{"email": "a", "password": ', headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(400);
    expect(response.text).not.toMatch(/at .*\.ts:\d+/);
  });
});
