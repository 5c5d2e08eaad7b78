import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installErrorHandler } from '../../../src/server/plugins/index.ts';
import { captureLog } from '../../support/captured-log.ts';

describe('error pages', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = Fastify({ logger: false });
    app.decorateRequest('actor', null);
    installErrorHandler(app, (text) => text);
    const fail = (): never => {
      throw new Error('secret detail /home/someone/warehouse.duckdb');
    };
    app.get('/broken-page', fail);
    app.get('/api/broken', fail);
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
  });

  it('shows a browser the error page in the layout, without the error itself', async () => {
    const response = await app.inject({ method: 'GET', url: '/broken-page' });
    expect(response.statusCode).toBe(500);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.body).toContain('<h1 id="error-title">Something went wrong</h1>');
    expect(response.body).toContain('/static/public/quarry.css');
    expect(response.body).not.toContain('secret detail');
  });

  it('keeps the JSON body for the API', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/broken' });
    expect(response.statusCode).toBe(500);
    expect(response.json()).toEqual({ detail: 'Internal error', code: 'internal_error' });
  });

  it('logs no error for a request that fails because its client went away (a closed tab)', async () => {
    const log = captureLog();
    const logger: FastifyBaseLogger = log.log;
    const server = Fastify({ loggerInstance: logger });
    server.decorateRequest('actor', null);
    installErrorHandler(server, (text) => text);
    let clientGone = (): void => undefined;
    const gone = new Promise<void>((resolve) => { clientGone = resolve; });
    server.get('/api/slow', async (request) => {
      await once(request.raw.socket, 'close');
      clientGone();
      throw new Error('the work was cut off');
    });
    server.get('/api/broken', () => { throw new Error('a fault of the service'); });
    const url = await server.listen({ host: '127.0.0.1', port: 0 });
    try {
      const caller = new AbortController();
      const asked = fetch(`${url}/api/slow`, { signal: caller.signal }).catch(() => 'gone');
      await new Promise((resolve) => setTimeout(resolve, 100));
      caller.abort();
      expect(await asked).toBe('gone');
      await gone;
      // The same handler's fault while its client waits is logged as the error it is.
      expect((await fetch(`${url}/api/broken`)).status).toBe(500);
      expect(log.records().filter((record) => record.level >= 50).map((record) => record.msg)).toEqual(['unhandled error']);
      expect(log.records().some((record) => record.msg === 'the client went away before its answer')).toBe(true);
    } finally {
      await server.close();
    }
  });

  it('answers an unknown page with the 404 page', async () => {
    const response = await app.inject({ method: 'GET', url: '/nowhere' });
    expect(response.statusCode).toBe(404);
    expect(response.body).toContain('<h1 id="error-title">Page not found</h1>');
  });
});
