import { mkdirSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { createServer, type Socket } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { captureLog, type CapturedLog } from '../support/captured-log.ts';
import { startMailReceiver, startWebhookReceiver, type MailReceiver, type WebhookReceiver } from '../support/alert-receivers.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const PUBLIC_URL = 'https://quarry.example.com';

// The folder is missing until a test creates it: every sync of orders fails until then.
const SOURCES = `sources:
  - name: orders
    type: local_files
    local_files:
      directory: data/orders
`;

const WEBHOOK_ALERT = { name: 'team', webhook_url_env: 'ALERT_WEBHOOK_URL', on: ['sync_failed', 'transform_run_failed', 'source_stale', 'schedule_missed'] };

describe('alerts', () => {
  let quarry: TestQuarry | undefined;
  let receiver: WebhookReceiver | undefined;
  let mail: MailReceiver | undefined;
  let captured: CapturedLog;

  afterEach(async () => {
    await quarry?.close();
    await receiver?.close();
    await mail?.close();
    quarry = undefined;
    receiver = undefined;
    mail = undefined;
  });

  async function startWithWebhook(): Promise<{ quarry: TestQuarry; receiver: WebhookReceiver }> {
    receiver = await startWebhookReceiver();
    captured = captureLog();
    quarry = await startQuarry({
      sourcesYaml: SOURCES,
      projectConfig: { web: { public_url: PUBLIC_URL }, alerts: [WEBHOOK_ALERT] },
      env: { ALERT_WEBHOOK_URL: receiver.url },
      log: captured.log,
    });
    return { quarry, receiver };
  }

  async function syncOrders(running: TestQuarry): Promise<{ type: string; error?: string }> {
    const done = Promise.race([
      running.nextEvent('sync_completed', (event) => event.source === 'orders'),
      running.nextEvent('sync_failed', (event) => event.source === 'orders'),
    ]);
    const response = await running.request('POST', '/api/sources/orders/sync', { as: 'editor' });
    expect(response.status).toBe(200);
    return done;
  }

  it('sends one webhook alert for a failing source after the receiver fails twice, and one recovery message', async () => {
    const { quarry, receiver } = await startWithWebhook();
    receiver.failNext(500, 503);

    const firstAttempt = quarry.nextEvent('alert_failed');
    const failed = await syncOrders(quarry);
    expect(failed.type).toBe('sync_failed');
    expect(await firstAttempt).toEqual({
      type: 'alert_failed', timestamp: expect.stringMatching(ISO_UTC), alert: 'team', event: 'sync_failed', error: 'the webhook answered HTTP 500',
    });

    // Retried with backoff on the injected clock: not before the first delay has passed.
    await quarry.alerts.deliverDue();
    expect(receiver.api.requests).toHaveLength(1);
    const secondAttempt = quarry.nextEvent('alert_failed');
    quarry.clock.advance(5_000);
    await quarry.alerts.deliverDue();
    expect((await secondAttempt).error).toBe('the webhook answered HTTP 503');

    const sent = quarry.nextEvent('alert_sent');
    quarry.clock.advance(10_000);
    await quarry.alerts.deliverDue();
    expect(await sent).toEqual({ type: 'alert_sent', timestamp: expect.stringMatching(ISO_UTC), alert: 'team', event: 'sync_failed' });
    expect(receiver.accepted).toEqual([{
      text: `[Test project] The sync of orders failed: ${failed.error ?? ''}\n${PUBLIC_URL}/sources/orders`,
      event: 'sync_failed', status: 'firing', alert: 'team', project: 'Test project', source: 'orders',
      error: failed.error, time: expect.stringMatching(ISO_UTC), url: `${PUBLIC_URL}/sources/orders`,
    }]);

    // The same incident again (a retry, a second press of Sync) is not a second alert.
    expect((await syncOrders(quarry)).type).toBe('sync_failed');
    quarry.clock.advance(3_600_000);
    await quarry.alerts.deliverDue();
    expect(receiver.accepted).toHaveLength(1);

    const dataDir = path.join(quarry.dir, 'data', 'orders');
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(path.join(dataDir, 'a.csv'), 'id,amount\n1,10\n');
    const recovery = quarry.nextEvent('alert_sent');
    expect((await syncOrders(quarry)).type).toBe('sync_completed');
    expect(await recovery).toMatchObject({ alert: 'team', event: 'sync_failed_resolved' });
    expect(receiver.accepted[1]).toEqual({
      text: `[Test project] orders syncs again\n${PUBLIC_URL}/sources/orders`,
      event: 'sync_failed_resolved', status: 'resolved', alert: 'team', project: 'Test project', source: 'orders',
      error: null, time: expect.stringMatching(ISO_UTC), url: `${PUBLIC_URL}/sources/orders`,
    });

    // A later success is no incident ending: nothing more is sent.
    expect((await syncOrders(quarry)).type).toBe('sync_completed');
    await quarry.alerts.deliverDue();
    expect(receiver.accepted).toHaveLength(2);
    expect(receiver.api.requests).toHaveLength(4);
  });

  it('never shows the webhook URL or its token in logs, events, the outbox or API responses', async () => {
    const { quarry, receiver } = await startWithWebhook();
    receiver.failNext(500);
    const events: unknown[] = [];
    quarry.ctx.events.subscribe((event) => { events.push(event); });
    const failedOnce = quarry.nextEvent('alert_failed');
    await syncOrders(quarry);
    await failedOnce;
    const responses = await Promise.all(['/api/config', '/api/health/platform', '/api/logs?limit=100', '/api/sources', '/api/sources/orders/details', '/api/openapi.json']
      .map((urlPath) => quarry.request('GET', urlPath, { as: 'admin' })));
    for (const response of responses) expect(response.status).toBe(200);
    const seen = [
      ...responses.map((response) => response.text),
      ...captured.records().map((record) => JSON.stringify(record)),
      JSON.stringify(events),
      JSON.stringify(await quarry.ctx.store.alerts.latest(10)),
    ].join('\n');
    expect(seen).toContain('Alert team not delivered (sync_failed of orders): the webhook answered HTTP 500; retrying');
    expect(seen).not.toContain(receiver.token);
    expect(seen).not.toContain('/services/');
  });

  it('delivers after a restart the message the stopped service had not delivered', async () => {
    const started = await startWithWebhook();
    const { receiver } = started;
    receiver.failNext(502);
    const failedOnce = started.quarry.nextEvent('alert_failed');
    await syncOrders(started.quarry);
    expect((await failedOnce).error).toBe('the webhook answered HTTP 502');
    expect((await started.quarry.ctx.store.alerts.latest(1))[0]).toMatchObject({ status: 'pending', attempts: 1 });

    quarry = await started.quarry.restart();
    await quarry.alerts.deliverDue();
    expect(receiver.accepted.map((body) => body.event)).toEqual(['sync_failed']);
    expect(await quarry.ctx.store.alerts.latest(5)).toEqual([expect.objectContaining({ status: 'sent', attempts: 2, event: 'sync_failed' })]);
  });

  it('never makes a job wait for a webhook that does not answer, and leaves its message pending when the service stops', async () => {
    const connections: Socket[] = [];
    const silent = createServer((socket) => { connections.push(socket); });
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    const address = silent.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    try {
      quarry = await startQuarry({
        sourcesYaml: SOURCES,
        projectConfig: { alerts: [WEBHOOK_ALERT] },
        env: { ALERT_WEBHOOK_URL: `http://127.0.0.1:${String(address.port)}/services/T0KEN` },
      });
      expect((await syncOrders(quarry)).type).toBe('sync_failed');
      await expect.poll(() => connections.length, { timeout: 5_000 }).toBe(1);
      // The delivery hangs; the next sync runs and ends all the same.
      expect((await syncOrders(quarry)).type).toBe('sync_failed');
      quarry = await quarry.restart();
      expect(await quarry.ctx.store.alerts.latest(5)).toEqual([expect.objectContaining({ status: 'pending', attempts: 0, event: 'sync_failed' })]);
      await expect.poll(() => connections.length, { timeout: 5_000 }).toBe(2);
    } finally {
      await quarry?.close();
      quarry = undefined;
      for (const socket of connections) socket.destroy();
      silent.close();
    }
  });

  it('opens an incident once however often it is reported, and reports a recovery once', async () => {
    const { quarry, receiver } = await startWithWebhook();
    const incident = { kind: 'schedule_missed', subject: 'nightly', error: 'the service was down at 03:00' } as const;
    expect(await quarry.alerts.incident(incident)).toBe(true);
    expect(await quarry.alerts.incident(incident)).toBe(false);
    expect(await quarry.alerts.recovered({ kind: 'schedule_missed', subject: 'nightly' })).toBe(true);
    expect(await quarry.alerts.recovered({ kind: 'schedule_missed', subject: 'nightly' })).toBe(false);
    await expect.poll(() => receiver.accepted.map((body) => [body.event, body.schedule]), { timeout: 5_000 })
      .toEqual([['schedule_missed', 'nightly'], ['schedule_missed_resolved', 'nightly']]);
    expect(receiver.accepted[0]?.text).toBe(`[Test project] Schedule nightly missed a run: the service was down at 03:00\n${PUBLIC_URL}/`);
  });

  it('announces deliveries on the WebSocket with exactly their fields, to clients that subscribe to them', async () => {
    const { quarry, receiver } = await startWithWebhook();
    receiver.failNext(500);
    const socket = new WebSocket(`${quarry.url.replace('http', 'ws')}/ws`, { headers: { cookie: await quarry.login('viewer') } });
    const messages: Record<string, unknown>[] = [];
    socket.on('message', (data: Buffer) => { messages.push(JSON.parse(data.toString()) as Record<string, unknown>); });
    await new Promise((resolve, reject) => { socket.once('open', resolve); socket.once('error', reject); });
    socket.send(JSON.stringify({ action: 'subscribe', types: ['alert_sent', 'alert_failed'] }));
    const failed = quarry.nextEvent('alert_failed');
    const sent = quarry.nextEvent('alert_sent');
    await quarry.alerts.incident({ kind: 'transform_run_failed', subject: 'orders_daily', error: 'boom' });
    await failed;
    quarry.clock.advance(5_000);
    await quarry.alerts.deliverDue();
    await sent;
    await expect.poll(() => messages.length, { timeout: 5_000 }).toBe(2);
    expect(messages).toEqual([
      { type: 'alert_failed', timestamp: expect.stringMatching(ISO_UTC), alert: 'team', event: 'transform_run_failed', error: 'the webhook answered HTTP 500' },
      { type: 'alert_sent', timestamp: expect.stringMatching(ISO_UTC), alert: 'team', event: 'transform_run_failed' },
    ]);
    socket.close();
  });

  it('sends an email through SMTP with the credentials from .env, and never logs the password', async () => {
    const credentials = { user: 'quarry-alerts', password: `smtp-${crypto.randomUUID()}` };
    mail = await startMailReceiver(credentials);
    captured = captureLog();
    quarry = await startQuarry({
      sourcesYaml: SOURCES,
      projectConfig: {
        web: { public_url: PUBLIC_URL },
        alerts: [{
          name: 'ops-mail', on: ['transform_run_failed'],
          email: {
            host: '127.0.0.1', port: mail.port, tls: 'none', user_env: 'ALERT_SMTP_USER', password_env: 'ALERT_SMTP_PASSWORD',
            from: 'quarry@example.com', to: ['data-team@example.com', 'oncall@example.com'],
          },
        }],
      },
      env: { ALERT_SMTP_USER: credentials.user, ALERT_SMTP_PASSWORD: credentials.password },
      log: captured.log,
    });
    const sent = quarry.nextEvent('alert_sent');
    quarry.ctx.events.publish({ type: 'transform_run_failed', model: 'orders_daily', error: 'Division by zero in orders_daily.sql' });
    expect(await sent).toMatchObject({ alert: 'ops-mail', event: 'transform_run_failed' });
    expect(mail.received).toHaveLength(1);
    const [message] = mail.received;
    expect(message?.from).toBe('quarry@example.com');
    expect(message?.to).toEqual(['data-team@example.com', 'oncall@example.com']);
    expect(message?.user).toBe('quarry-alerts');
    const unfolded = message?.data.replace(/\r\n[ \t]/g, ' ') ?? '';
    expect(unfolded).toContain('Subject: [Test project] The run of model orders_daily failed: Division by zero in orders_daily.sql');
    expect(unfolded).toContain('Event: transform_run_failed');
    expect(unfolded).toContain('Model: orders_daily');
    expect(unfolded).toContain('Error: Division by zero in orders_daily.sql');
    expect(unfolded).toContain(`Open in Quarry: ${PUBLIC_URL}/models`);
    expect(captured.records().map((record) => JSON.stringify(record)).join('\n')).not.toContain(credentials.password);
  });

  it('reports an email the server refuses as alert_failed, with the reason and without the password', async () => {
    const credentials = { user: 'quarry-alerts', password: `smtp-${crypto.randomUUID()}` };
    mail = await startMailReceiver({ user: credentials.user, password: 'another-password' });
    quarry = await startQuarry({
      sourcesYaml: SOURCES,
      projectConfig: {
        alerts: [{
          name: 'ops-mail', on: ['sync_failed'],
          email: { host: '127.0.0.1', port: mail.port, tls: 'none', user_env: 'SMTP_USER', password_env: 'SMTP_PASSWORD', from: 'q@example.com', to: ['d@example.com'] },
        }],
      },
      env: { SMTP_USER: credentials.user, SMTP_PASSWORD: credentials.password },
    });
    const failed = quarry.nextEvent('alert_failed');
    await syncOrders(quarry);
    const { error } = await failed;
    expect(error).toMatch(/^the mail server did not take the message: Invalid login/);
    expect(error).not.toContain(credentials.password);
    expect(mail.received).toHaveLength(0);
  });
});
