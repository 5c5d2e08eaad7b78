import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboundPolicy } from '../../src/sources/index.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/alert-receivers.ts';
import { startFakeApi, type FakeApi } from '../support/fake-api.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';

/** What a loopback service answers: none of it may reach the editor. */
const LOOPBACK_SECRET = 'superset-secret-body-7c1e';
const NO_NETWORK = { network: { allow_private: [] } };

const restApi = (baseUrl: string, path: string) => ({ type: 'rest_api', config: { base_url: baseUrl, auth_type: 'none', endpoints: [{ path }] }, secrets: {} });

describe('outbound requests of sources and alerts', () => {
  let quarry: TestQuarry;
  let superset: FakeApi;
  let redirector: FakeApi;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    superset = await startFakeApi((app) => { app.get('/api/v1/me', async () => [{ secret: LOOPBACK_SECRET }]); });
    redirector = await startFakeApi((app) => {
      app.get('/moved', async (_request, reply) => reply.redirect(`${superset.url}/api/v1/me`, 302));
    });
    receiver = await startWebhookReceiver();
    quarry = await startQuarry({
      projectConfig: { ...NO_NETWORK, alerts: [{ name: 'team', webhook_url_env: 'ALERT_WEBHOOK_URL', on: ['sync_failed'] }] },
      env: { ALERT_WEBHOOK_URL: receiver.url },
    });
  });
  afterAll(async () => {
    await quarry.close();
    await Promise.all([superset.close(), redirector.close(), receiver.close()]);
  });

  const sourceTest = (baseUrl: string, path: string) => quarry.request('POST', '/api/source-test', { as: 'editor', body: restApi(baseUrl, path) });

  it.each([
    ['the service itself', () => quarry.url, '/api/health', '127.0.0.1: it is a loopback address (this machine)'],
    ['a Superset-like loopback port', () => superset.url, '/api/v1/me', '127.0.0.1: it is a loopback address (this machine)'],
    ['the metadata address', () => 'http://169.254.169.254', '/latest/meta-data/', '169.254.169.254: it is a cloud metadata address'],
    ['a name that resolves to loopback', () => superset.url.replace('127.0.0.1', 'localhost'), '/api/v1/me', 'localhost (127.0.0.1): it is a loopback address (this machine)'],
  ])('refuses a source test at %s, showing none of its body', async (_what, baseUrl, path, refused) => {
    const tested = await sourceTest(baseUrl(), path);
    expect(tested.status).toBe(200);
    expect(tested.json).toEqual({
      success: false,
      message: `Quarry does not connect to ${refused}; an admin can allow the host under network.allow_private in project.yml`,
    });
    expect(tested.text).not.toContain(LOOPBACK_SECRET);
  });

  it('refuses a source test at a server that redirects to loopback', async () => {
    const tested = await sourceTest(redirector.url.replace('127.0.0.1', 'localhost'), '/moved');
    expect(tested.json.success).toBe(false);
    expect(tested.text).not.toContain(LOOPBACK_SECRET);
  });

  it('checks every connection a redirect leads to, not only the first', async () => {
    const policy = new OutboundPolicy(['localhost']);
    try {
      const followed = fetch(`${redirector.url.replace('127.0.0.1', 'localhost')}/moved`, { dispatcher: policy.dispatcher });
      await expect(followed).rejects.toMatchObject({ cause: { message: expect.stringContaining('Quarry does not connect to 127.0.0.1') } });
    } finally {
      await policy.close();
    }
  });

  it('refuses an alert webhook to loopback, naming neither its host nor its token', async () => {
    const sent = quarry.alerts.sendTest('team', quarry.url);
    await expect(sent).rejects.toThrow(
      'the webhook\'s address is refused: a loopback address (this machine); an admin can allow the host under network.allow_private in project.yml',
    );
    await sent.catch((error: unknown) => { expect(String(error)).not.toContain(receiver.token); });
    expect(receiver.accepted).toEqual([]);
  });

  it('refuses a base_url that holds credentials, without repeating them, and writes nothing', async () => {
    const before = quarry.ctx.sources.length;
    for (const baseUrl of ['https://ops:pa55word-9f2@api.example.com', 'https://api.example.com/v1?api_key=k3y-literal-4d1a']) {
      const version = (await quarry.request('GET', '/api/sources-file', { as: 'editor' })).json?.version;
      const added = await quarry.request('POST', '/api/sources', { as: 'editor', body: { name: 'leaky', ...restApi(baseUrl, '/x'), version } });
      expect(added.status).toBe(400);
      expect(added.json.detail).toMatch(/rest_api\.base_url: holds (credentials before the host|a credential in the query parameter api_key)/);
      expect(added.text).not.toMatch(/pa55word-9f2|k3y-literal-4d1a/);
      const tested = await sourceTest(baseUrl, '/x');
      expect(tested.text).not.toMatch(/pa55word-9f2|k3y-literal-4d1a/);
    }
    expect(quarry.ctx.sources.length).toBe(before);
  });

  it('escapes formula cells of a CSV export and leaves numbers alone', async () => {
    const exported = await quarry.request('POST', '/api/query', {
      as: 'viewer', headers: { accept: 'text/csv' }, body: { sql: `SELECT '=HYPERLINK(''x'')' AS a, -5 AS n, '-5' AS t, '@x' AS "=b"` },
    });
    expect(exported.status).toBe(200);
    expect(exported.text).toBe(`a,n,t,'=b\n'=HYPERLINK('x'),-5,'-5,'@x\n`);
  });
});

describe('hosts project.yml allows', () => {
  let quarry: TestQuarry;
  let internal: FakeApi;
  beforeAll(async () => {
    internal = await startFakeApi((app) => { app.get('/v1/items', async () => [{ id: 1 }]); });
    quarry = await startQuarry({ projectConfig: { network: { allow_private: ['localhost'] } } });
  });
  afterAll(async () => {
    await quarry.close();
    await internal.close();
  });

  it('reaches a listed host, and only it', async () => {
    const allowed = await quarry.request('POST', '/api/source-test', { as: 'editor', body: restApi(internal.url.replace('127.0.0.1', 'localhost'), '/v1/items') });
    expect(allowed.json).toEqual({ success: true, message: 'Connected and read the first records' });
    const other = await quarry.request('POST', '/api/source-test', { as: 'editor', body: restApi(internal.url, '/v1/items') });
    expect(other.json.success).toBe(false);
  });
});
