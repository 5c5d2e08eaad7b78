import { createHash } from 'node:crypto';
import { createServer } from 'node:net';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installUpstreamProxy } from '../../src/server/upstream-proxy.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';

describe('transformation-docs site behind /transform-docs/', () => {
  let quarry: TestQuarry;

  beforeAll(async () => {
    quarry = await startQuarry({ transform: true, docsServer: true });
    await quarry.ctx.transform.idle(); // start() generates the docs once
  });
  afterAll(async () => {
    await quarry.close();
  });

  it('serves dbt\'s docs site, manifest.json and catalog.json to signed-in users and API keys', async () => {
    const bare = await quarry.request('GET', '/transform-docs', { as: 'viewer' });
    expect(bare.status).toBe(301);
    expect(bare.headers.get('location')).toBe('/transform-docs/');

    const index = await quarry.request('GET', '/transform-docs/', { as: 'viewer' });
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toContain('text/html');
    expect(index.text).toContain('dbt');

    for (const file of ['/manifest.json', '/transform-docs/manifest.json']) {
      const manifest = await quarry.request('GET', file, { as: 'viewer' });
      expect(manifest.status).toBe(200);
      expect(manifest.json.metadata.dbt_version).toBe('1.11.16');
    }
    const { json: key } = await quarry.request('POST', '/api/auth/api-keys', { as: 'viewer', body: { name: 'docs' } });
    const catalog = await quarry.request('GET', '/catalog.json', { apiKey: key.key });
    expect(catalog.status).toBe(200);
    expect(catalog.json).toHaveProperty('nodes');
    expect((await quarry.request('GET', '/api/status', { as: 'viewer' })).json.services.transform_docs).toBe('running');
  });

  it('serves the docs page with a policy that allows exactly its own inline scripts, and no request that can only fail', async () => {
    const index = await quarry.request('GET', '/transform-docs/', { as: 'viewer' });
    const scripts = [...index.text.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/gi)].map(([, body = '']) => body);
    expect(scripts.length).toBeGreaterThan(0);
    const hashes = scripts.map((body) => `'sha256-${createHash('sha256').update(body).digest('base64')}'`);
    const policy = index.headers.get('content-security-policy') ?? '';
    const scriptSources = /(?:^|;\s*)script-src ([^;]*)/.exec(policy)?.[1]?.split(' ');
    expect(scriptSources).toEqual(["'self'", ...hashes]);
    expect(policy).toContain("object-src 'none'");
    // dbt's unreplaced favicon placeholder and its `{{ }}` SVG references would be requested and 404.
    expect(index.text).not.toContain('${require(');
    expect(index.text).not.toContain('<use xlink:href="{{');
    expect((await quarry.request('GET', '/api/status', { as: 'viewer' })).headers.get('content-security-policy')).toContain("script-src 'self';");
  });

  it('sends a browser without a session to the login page, with the path to come back to', async () => {
    for (const file of ['/transform-docs/', '/manifest.json', '/catalog.json']) {
      const response = await quarry.request('GET', file, { headers: { accept: 'text/html' } });
      expect(response.status).toBe(303);
      expect(response.headers.get('location')).toBe(`/login?next=${encodeURIComponent(file)}`);
    }
    const badKey = await quarry.request('GET', '/manifest.json', { apiKey: 'svc_ak_not-a-key' });
    expect(badKey.status).toBe(401);
    expect(badKey.json).toEqual({ detail: 'Invalid, expired or revoked API key', code: 'unauthenticated' });
  });

  it('answers 502 upstream_unavailable while the docs server is down: JSON for clients, a page for browsers', async () => {
    await quarry.docsServer!.stop();
    expect((await quarry.request('GET', '/api/status', { as: 'viewer' })).json.services.transform_docs).toBe('not_running');
    const json = await quarry.request('GET', '/manifest.json', { as: 'viewer', headers: { accept: 'application/json' } });
    expect(json.status).toBe(502);
    expect(json.json).toEqual({ detail: 'The transformation-docs site is not available right now', code: 'upstream_unavailable' });
    const page = await quarry.request('GET', '/transform-docs/', { as: 'viewer', headers: { accept: 'text/html,application/xhtml+xml' } });
    expect(page.status).toBe(502);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.text).toContain('The transformation-docs site is not available right now');
  });
});

describe('upstream proxy', () => {
  it('answers 502 upstream_unavailable when the upstream refuses the connection', async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const address = server.address();
        server.close(() => { resolve(typeof address === 'object' && address !== null ? address.port : 0); });
      });
    });
    const app = Fastify();
    await installUpstreamProxy(app, {
      label: 'The test upstream', routes: ['/up/*'], origin: () => `http://127.0.0.1:${String(closedPort)}`, upstreamPath: (url) => url.slice(3),
    });
    try {
      const response = await app.inject({ method: 'GET', url: '/up/x' });
      expect(response.statusCode).toBe(502);
      expect(response.json()).toEqual({ detail: 'The test upstream is not available right now', code: 'upstream_unavailable' });
    } finally {
      await app.close();
    }
  });
});
