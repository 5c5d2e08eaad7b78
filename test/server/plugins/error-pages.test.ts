import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installErrorHandler } from '../../../src/server/plugins/index.ts';

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

  it('answers an unknown page with the 404 page', async () => {
    const response = await app.inject({ method: 'GET', url: '/nowhere' });
    expect(response.statusCode).toBe(404);
    expect(response.body).toContain('<h1 id="error-title">Page not found</h1>');
  });
});
