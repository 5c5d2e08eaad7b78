import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { stringify } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { initProject } from '../../src/cli/init.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/alert-receivers.ts';
import { LOOPBACK_NETWORK } from '../support/loopback-network.ts';
import { QUARRY_BIN } from '../support/quarry-process.ts';

const run = promisify(execFile);

describe('quarry alert test', () => {
  let dir: string;
  let receiver: WebhookReceiver;

  beforeEach(async () => {
    receiver = await startWebhookReceiver();
    dir = await mkdtemp(path.join(tmpdir(), 'quarry-alert-cli-'));
    await initProject(dir, { name: 'Ops', adminEmail: 'admin@example.com', adminPassword: 'admin-password-123', nonInteractive: true }, {});
    await writeFile(path.join(dir, '.quarry', 'project.yml'), stringify({
      name: 'Ops',
      web: { host: '127.0.0.1', port: 8899 },
      network: LOOPBACK_NETWORK,
      alerts: [
        { name: 'team', webhook_url_env: 'ALERT_WEBHOOK_URL', on: ['sync_failed'] },
        { name: 'unset', webhook_url_env: 'NOT_SET_ANYWHERE', on: ['sync_failed'] },
      ],
    }));
    await writeFile(path.join(dir, '.env'), `ALERT_WEBHOOK_URL=${receiver.url}\n`);
  });
  afterEach(async () => {
    await receiver.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Runs bin/quarry without blocking this process, which serves the receiver. */
  async function quarry(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    try {
      const { stdout, stderr } = await run(QUARRY_BIN, args, { encoding: 'utf8' });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  }

  it('sends a test message that names the alert and links to Quarry', async () => {
    expect(await quarry('alert', 'test', 'team', '--project', dir)).toEqual({ code: 0, stdout: 'Sent a test message to alert team\n', stderr: '' });
    expect(receiver.accepted).toEqual([{
      text: '[Ops] Test message for alert team: alerts reach this destination\nhttp://127.0.0.1:8899/health',
      event: 'alert_test', status: 'test', alert: 'team', project: 'Ops', error: null, time: expect.any(String),
      url: 'http://127.0.0.1:8899/health',
    }]);
  });

  it('exits 1 with one line saying why, never the URL', async () => {
    receiver.failNext(500);
    const refused = await quarry('alert', 'test', 'team', '--project', dir);
    expect(refused).toEqual({ code: 1, stdout: '', stderr: 'quarry: the test message to alert team was not delivered: the webhook answered HTTP 500\n' });
    expect(await quarry('alert', 'test', 'unset', '--project', dir)).toEqual({
      code: 1, stdout: '', stderr: 'quarry: the test message to alert unset was not delivered: NOT_SET_ANYWHERE is not set in .env or the environment\n',
    });
    expect(await quarry('alert', 'test', 'nobody', '--project', dir)).toEqual({
      code: 1, stdout: '', stderr: 'quarry: No alert named "nobody" in project.yml (alerts: team, unset)\n',
    });
    await receiver.close();
    const unreachable = await quarry('alert', 'test', 'team', '--project', dir);
    expect(unreachable).toEqual({
      code: 1, stdout: '', stderr: 'quarry: the test message to alert team was not delivered: the webhook could not be reached (ECONNREFUSED)\n',
    });
    expect(receiver.accepted).toHaveLength(0);
  });
});
