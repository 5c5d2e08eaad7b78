import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openConfiguredStore, openPostgresStore, openStore, storeFailure, type Store } from '../../src/store/index.ts';
import { onPostgres } from '../support/local-postgres.ts';
import { freshPostgresStore } from '../support/postgres-store.ts';

const OWNER = { pid: 4242, started: '2026-11-29T08:00:00.000Z', host: 'web-1', worker: 'web-1:4242' };
const NOW = '2026-11-29T09:00:00.000Z';
const LATER = '2026-11-29T10:00:00.000Z';

interface Engine {
  /** Opens the store under test; a second call opens another handle on the same one, as a second process would. */
  open(): Promise<Store>;
  cleanUp(): Promise<void>;
}

function embedded(): Engine {
  const dir = mkdtempSync(path.join(tmpdir(), 'quarry-store-'));
  const file = path.join(dir, 'platform.db');
  return { open: async () => openStore(file), cleanUp: async () => { rmSync(dir, { recursive: true, force: true }); } };
}

function shared(): Engine {
  const place = freshPostgresStore();
  return { open: () => openPostgresStore(place), cleanUp: () => place.drop() };
}

/** The same behaviour asked of both stores: the embedded SQLite file and a PostgreSQL database a deployment shares. */
describe.each([['sqlite', embedded], ['postgres', shared]] as const)('the platform store on %s', (engineName, makeEngine) => {
  let engine: Engine;
  let store: Store;
  const others: Store[] = [];

  beforeEach(async () => {
    engine = makeEngine();
    store = await engine.open();
  });

  afterEach(async () => {
    for (const other of others.splice(0)) await other.close();
    await store.close();
    await engine.cleanUp();
  });

  async function secondProcess(): Promise<Store> {
    const other = await engine.open();
    others.push(other);
    return other;
  }

  it(`says it is ${engineName}`, () => {
    expect(store.engine).toBe(engineName);
  });

  it('keeps users with their flags, unique by email', async () => {
    const user = await store.users.insert({ email: 'ada@example.com', name: 'Ada', role: 'admin', passwordHash: 'hash', mustChangePassword: true }, NOW);
    expect(user).toMatchObject({ id: expect.any(Number), email: 'ada@example.com', role: 'admin', active: true, mustChangePassword: true });
    await expect(store.users.insert({ email: 'ada@example.com', name: 'Twin', role: 'viewer', passwordHash: null }, NOW)).rejects.toThrow();
    await store.users.update(user.id, { role: 'viewer', active: false }, LATER);
    expect(await store.users.findByEmail('ada@example.com')).toMatchObject({ role: 'viewer', active: false, name: 'Ada' });
    expect(await store.users.count()).toBe(1);
    const second = await store.users.insert({ email: 'bo@example.com', name: 'Bo', role: 'editor', passwordHash: null }, NOW);
    expect(second.id).toBeGreaterThan(user.id);
  });

  it('deletes a user with its sessions and keys', async () => {
    const user = await store.users.insert({ email: 'ada@example.com', name: 'Ada', role: 'admin', passwordHash: 'hash' }, NOW);
    await store.sessions.insert({ id: 's1', tokenHash: 't1', userId: user.id, stage: 'full', ip: '10.0.0.1', userAgent: 'ua' }, NOW);
    await store.apiKeys.insert({ id: 'k1', userId: user.id, name: 'ci', keyHash: 'h1', prefix: 'qk_1', expiresAt: null }, NOW);
    await store.users.delete(user.id);
    expect(await store.sessions.findByTokenHash('t1')).toBeUndefined();
    expect(await store.apiKeys.findByHash('h1')).toBeUndefined();
  });

  it('counts two-factor and login failures per key, from zero again once cleared', async () => {
    const user = await store.users.insert({ email: 'ada@example.com', name: 'Ada', role: 'admin', passwordHash: 'hash' }, NOW);
    expect(await store.loginFailures.increment('10.0.0.1', 'ada@example.com', NOW)).toBe(1);
    expect(await store.loginFailures.increment('10.0.0.1', 'ada@example.com', NOW)).toBe(2);
    expect(await store.loginFailures.increment('10.0.0.2', 'ada@example.com', NOW)).toBe(1);
    expect(await store.loginFailures.clearEmail('ada@example.com')).toBe(2);
    expect(await store.totpFailures.increment(user.id)).toBe(1);
    expect(await store.totpFailures.increment(user.id)).toBe(2);
    expect(await store.totpFailures.clear(user.id)).toBe(true);
    expect(await store.totpFailures.increment(user.id)).toBe(1);
  });

  it('moves the credential generation when a session ends, in another process too', async () => {
    const user = await store.users.insert({ email: 'ada@example.com', name: 'Ada', role: 'admin', passwordHash: 'hash' }, NOW);
    await store.sessions.insert({ id: 's1', tokenHash: 't1', userId: user.id, stage: 'full', ip: '', userAgent: '' }, NOW);
    const other = await secondProcess();
    const before = await other.credentialGeneration.current();
    expect(await other.credentialGeneration.current()).toBe(before);
    await store.sessions.touch('s1', LATER);
    expect(await other.credentialGeneration.current()).toBe(before);
    expect(await store.sessions.delete('s1')).toBe(true);
    expect(await other.credentialGeneration.current()).not.toBe(before);
  });

  it('queues one active job per target, whichever process asks', async () => {
    const other = await secondProcess();
    const job = { kind: 'sync' as const, target: 'orders', fullRefresh: false, requestedBy: 'ada@example.com' };
    const [first, second] = await Promise.all([
      store.jobs.enqueueUnlessActive(job, NOW, OWNER),
      other.jobs.enqueueUnlessActive(job, NOW, { pid: 7, started: NOW, host: 'worker-2', worker: 'second' }),
    ]);
    expect([first, second].filter((queued) => queued !== undefined)).toHaveLength(1);
    const queued = (first ?? second)!;
    expect(await store.jobs.enqueueUnlessActive({ ...job, kind: 'run' }, NOW, OWNER)).toMatchObject({ kind: 'run', status: 'queued' });
    expect(queued.worker).toBeNull();
    expect(await store.jobs.markRunning(queued.id, NOW, { pid: 9, started: NOW, host: 'worker-3', worker: 'third' })).toBe(true);
    await store.jobs.finish(queued.id, { status: 'success', rows: 3_000_000_000, error: null, filesFailed: 1 }, LATER);
    expect(await store.jobs.get(queued.id)).toMatchObject({
      status: 'success', rows: 3_000_000_000, filesFailed: 1, transient: false, finishedAt: LATER, worker: 'third', owner: { pid: 9, host: 'worker-3' },
    });
    expect(await store.jobs.markRunning(queued.id, LATER, OWNER)).toBe(false);
    expect(await store.jobs.enqueueUnlessActive(job, LATER, OWNER)).toMatchObject({ status: 'queued', fullRefresh: false });
    expect((await store.jobs.active()).map((active) => active.kind)).toEqual(['run', 'sync']);
  });

  it('reads which of many jobs have ended in one call', async () => {
    const jobs = [];
    for (let index = 0; index < 620; index++) {
      jobs.push((await store.jobs.enqueueUnlessActive({ kind: 'sync', target: `many-${String(index)}`, fullRefresh: false, requestedBy: null }, NOW, OWNER))!);
    }
    const finished = [jobs[3]!, jobs[550]!, jobs[619]!];
    for (const job of finished) await store.jobs.finish(job.id, { status: 'failed', rows: null, error: 'no', filesFailed: 0 }, LATER);
    const ended = await store.jobs.endedAmong([...jobs.map((job) => job.id), 999_999]);
    expect(ended.map((job) => [job.id, job.status])).toEqual(finished.map((job) => [job.id, 'failed']));
    expect(await store.jobs.endedAmong([])).toEqual([]);
  });

  it('interrupts a job once, and fails the model runs it left running', async () => {
    const job = (await store.jobs.enqueueUnlessActive({ kind: 'run', target: 'all', fullRefresh: false, requestedBy: null, parameters: { models: ['a+'] } }, NOW, OWNER))!;
    expect(job.parameters).toEqual({ models: ['a+'] });
    await store.jobs.markRunning(job.id, NOW, OWNER);
    await store.modelRuns.markRunning(job.id, 'stg_orders', NOW);
    await store.modelRuns.finish(job.id, 'stg_customers', { status: 'success', durationSeconds: 1.25, error: null }, NOW);
    expect(await store.jobs.interrupt(job.id, 'stopped', LATER)).toMatchObject({ status: 'interrupted', error: 'stopped' });
    expect(await store.jobs.interrupt(job.id, 'stopped again', LATER)).toBeUndefined();
    await store.modelRuns.failRunning(null, 'the run stopped', LATER);
    const runs = await store.modelRuns.forJob(job.id);
    expect(runs.map((run) => [run.model, run.status, run.durationSeconds])).toEqual(
      expect.arrayContaining([['stg_orders', 'error', null], ['stg_customers', 'success', 1.25]]),
    );
  });

  it('keeps the activity log newest first, per source', async () => {
    await store.logs.append({ timestamp: NOW, level: 'INFO', source: 'orders', message: 'first' });
    await store.logs.append({ timestamp: LATER, level: 'ERROR', source: 'orders', message: 'second' });
    await store.logs.append({ timestamp: LATER, level: 'SUCCESS', source: 'crm', message: 'other' });
    expect((await store.logs.latest(10, 'orders')).map((entry) => entry.message)).toEqual(['second', 'first']);
    expect(await store.logs.latest(1)).toHaveLength(1);
  });

  it('replaces a source ledger whole and keeps sizes and times past 32 bits', async () => {
    const entry = { path: 'a.csv', size: 5_000_000_000, mtimeMs: 1_764_000_000_123, sha256: 'abc', rows: 3, loadedAt: NOW, reading: '{}', error: null };
    await store.fileLedger.replace('orders', [entry, { ...entry, path: 'b.csv', error: 'unreadable' }]);
    await store.fileLedger.replace('crm', [entry]);
    await store.fileLedger.replace('orders', [{ ...entry, rows: 4, sha256: '' }]);
    expect([...(await store.fileLedger.forSource('orders')).values()]).toEqual([{ ...entry, rows: 4, sha256: '' }]);
    await store.fileLedger.recordHash('orders', { ...entry, rows: 4 }, 'def');
    expect((await store.fileLedger.forSource('orders')).get('a.csv')?.sha256).toBe('def');
    expect((await store.fileLedger.forSource('crm')).size).toBe(1);
  });

  it('counts every change of a table, so its profile goes stale', async () => {
    await store.warehouseTables.replaceForSource('orders', [{ schema: 'raw_orders', name: 'orders', rowCount: 3, primaryKey: ['id'] }], NOW);
    const [stale] = await store.tableProfiles.stale();
    expect(stale).toMatchObject({ schema: 'raw_orders', name: 'orders' });
    await store.tableProfiles.save({ schema: 'raw_orders', name: 'orders', kind: 'table', columns: [], profiledAt: NOW }, stale!.generation);
    expect(await store.tableProfiles.stale()).toEqual([]);
    await store.warehouseTables.replaceForSource('orders', [{ schema: 'raw_orders', name: 'orders', rowCount: 4 }], LATER);
    expect(await store.tableProfiles.stale()).toEqual([{ schema: 'raw_orders', name: 'orders', generation: stale!.generation + 1 }]);
    await store.warehouseTables.replaceModelTable({ schema: 'marts', name: 'revenue', layer: 'marts', rowCount: 2 }, NOW);
    expect(await store.warehouseTables.countByLayer()).toEqual({ raw: 1, staging: 0, marts: 1 });
    expect(await store.warehouseTables.forSource('orders')).toEqual([{ schema: 'raw_orders', name: 'orders', rowCount: 4, primaryKey: [] }]);
  });

  it('keeps cursors, refresh marks, OAuth tokens and dashboard accounts by key', async () => {
    await store.sourceState.save('crm', new Map<string, unknown>([['contacts', { since: '2026-01-01' }], ['deals', 7]]), NOW);
    await store.sourceState.save('crm', new Map<string, unknown>([['deals', 8]]), LATER);
    expect(await store.sourceState.forSource('crm')).toEqual(new Map<string, unknown>([['contacts', { since: '2026-01-01' }], ['deals', 8]]));
    await store.refreshMarks.mark('crm', 'restored', NOW);
    expect(await store.refreshMarks.isMarked('crm')).toBe(true);
    await store.refreshMarks.clear('crm');
    expect(await store.refreshMarks.isMarked('crm')).toBe(false);
    await store.sourceOAuthTokens.save('google', 'sealed-1', NOW);
    await store.sourceOAuthTokens.save('google', 'sealed-2', LATER);
    expect(await store.sourceOAuthTokens.find('google')).toBe('sealed-2');
    const account = { userId: 9, username: 'ada', supersetUserId: 3, passwordEncrypted: 'x', active: true, role: 'viewer' as const, syncedAt: NOW };
    await store.dashboardAccounts.save(account);
    await store.dashboardAccounts.save({ ...account, active: false, syncedAt: LATER });
    expect(await store.dashboardAccounts.list()).toEqual([{ ...account, active: false, syncedAt: LATER }]);
  });

  it('records schedule slots and runs, and test results with their failing rows', async () => {
    expect(await store.schedules.claimSlot('nightly', NOW)).toBe(true);
    const other = await secondProcess();
    const claims = await Promise.all([store.schedules.claimSlot('nightly', LATER), other.schedules.claimSlot('nightly', LATER)]);
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await store.schedules.claimSlot('nightly', NOW)).toBe(false);
    expect(await store.schedules.lastSlot('nightly')).toBe(LATER);
    const run = await store.schedules.startRun('nightly', 'cron', NOW);
    expect(await store.schedules.interruptRunning(LATER)).toBe(1);
    expect(await store.schedules.latestRun('nightly')).toMatchObject({ id: run.id, outcome: 'interrupted' });
    const result = {
      jobId: 1, test: 'test.unique_id', name: 'unique_id', model: 'stg_orders', column: 'id', type: 'unique', severity: 'error' as const,
      status: 'fail' as const, failures: 2, message: 'Got 2 results', compiledSql: 'select 1', failingRows: [{ id: 1, n: 2 }], finishedAt: NOW,
    };
    await store.testResults.record(result);
    expect(await store.testResults.forJob(1)).toEqual([result]);
    expect(await store.testResults.failsFor('stg_orders')).toBe(true);
  });

  it('opens an incident once and keeps its messages in the outbox until sent', async () => {
    expect(await store.alerts.openIncident({ kind: 'source', subject: 'orders', error: 'down', openedAt: NOW })).toBe(true);
    expect(await store.alerts.openIncident({ kind: 'source', subject: 'orders', error: 'down', openedAt: LATER })).toBe(false);
    const id = await store.alerts.enqueue({ alert: 'team', event: 'failure', message: '{}', createdAt: NOW });
    expect(await store.alerts.pending(LATER)).toEqual([expect.objectContaining({ id, alert: 'team', createdAt: NOW, nextAttemptAt: NOW })]);
    await store.alerts.markAttemptFailed(id, 'refused', NOW, LATER);
    expect(await store.alerts.nextAttemptAt()).toBe(LATER);
    await store.alerts.markSent(id, LATER);
    expect(await store.alerts.pending(LATER)).toEqual([]);
    expect(await store.alerts.closeIncident('source', 'orders')).toBe(true);
  });

  it('rolls a failed transaction back whole, and keeps other callers out until it ends', async () => {
    await expect(store.transaction(async () => {
      await store.audit.append({ at: NOW, event: 'inside', actorEmail: null, subject: null, ip: null, detail: null });
      throw new Error('changed my mind');
    })).rejects.toThrow('changed my mind');
    expect(await store.audit.latest(10)).toEqual([]);

    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => { release = resolve; });
    const transaction = store.transaction(async () => {
      await store.audit.append({ at: NOW, event: 'first', actorEmail: null, subject: null, ip: null, detail: null });
      await held;
      await store.audit.append({ at: NOW, event: 'second', actorEmail: null, subject: null, ip: null, detail: null });
    });
    const outside = store.audit.latest(10);
    await pause(100);
    release();
    await transaction;
    const seen = (await outside).map((event) => event.event);
    expect(seen.length === 0 || seen.length === 2).toBe(true);
    expect((await store.audit.latest(10)).map((event) => event.event).sort()).toEqual(['first', 'second']);
  });

  it('treats work a transaction left behind as an outsider once it has ended', async () => {
    const event = (name: string) => ({ at: NOW, event: name, actorEmail: null, subject: null, ip: null, detail: null });
    let leftBehind: Promise<void> | undefined;
    await store.transaction(async () => {
      await store.audit.append(event('inside'));
      leftBehind = pause(50).then(() => store.audit.append(event('left behind')));
    });
    await expect(store.transaction(async () => {
      await store.audit.append(event('doomed'));
      await pause(150);
      throw new Error('rolled back');
    })).rejects.toThrow('rolled back');
    await leftBehind;
    expect((await store.audit.latest(10)).map((entry) => entry.event).sort()).toEqual(['inside', 'left behind']);
  });

  it('opens again at the same schema version', async () => {
    const other = await secondProcess();
    expect(await other.users.count()).toBe(0);
  });
});

describe('a shared store whose server ends a connection', () => {
  it('fails the transaction that held it and goes on with a new one, the process unharmed', async () => {
    const place = freshPostgresStore();
    const store = await openPostgresStore(place);
    try {
      const lostMidway = store.transaction(async () => {
        await store.jobs.enqueueUnlessActive({ kind: 'sync', target: 'cut', fullRefresh: false, requestedBy: null }, NOW, OWNER);
        const { rows } = await store.shared?.executeSql('SELECT pg_backend_pid() AS pid', []) as { rows: { pid: number }[] };
        // Between two statements, as a restart of the server would: the connection ends with 57P01.
        await onPostgres((client) => client.query('SELECT pg_terminate_backend($1)', [rows[0]?.pid]));
        await new Promise((resolve) => setTimeout(resolve, 300));
        await store.jobs.active();
      });
      await expect(lostMidway).rejects.toThrow();
      expect(await store.jobs.active()).toEqual([]);
      expect(await store.jobs.enqueueUnlessActive({ kind: 'sync', target: 'cut', fullRefresh: false, requestedBy: null }, NOW, OWNER)).toMatchObject({ status: 'queued' });
    } finally {
      await store.close();
      await place.drop();
    }
  });
});

describe('a shared store that cannot be reached', () => {
  it('stops a start with the store named and PostgreSQL\'s reason, and its failures read as unavailable', async () => {
    // Port 1 (tcpmux) is served by nothing here, and no test server can take it, unlike a free port picked now.
    const closedPort = 1;
    const platform = { store: { kind: 'postgres' as const, host: '127.0.0.1', port: closedPort, user: 'quarry', database: 'analytics' }, schema: 'quarry_platform', password_env: 'QUARRY_PLATFORM_PASSWORD', job_lease_seconds: 30, job_concurrency: 4 };
    const opening = openConfiguredStore('/nonexistent/platform.db', platform, { QUARRY_PLATFORM_PASSWORD: 'not-in-the-message' });
    await expect(opening).rejects.toThrow(`The platform store postgres://quarry@127.0.0.1:${String(closedPort)}/analytics (schema quarry_platform) cannot be used: `);
    const error = await opening.catch((failure: unknown) => failure);
    expect(String(error)).not.toContain('not-in-the-message');
    expect(storeFailure((error as Error).cause)).toBe('unavailable');
  });
});

describe('a shared store newer than this Quarry', () => {
  it('is refused with the versions named', async () => {
    const place = freshPostgresStore();
    try {
      await (await openPostgresStore(place)).close();
      await onPostgres(async (client) => { await client.query(`UPDATE ${place.schema}.schema_version SET version = version + 1`); });
      await expect(openPostgresStore(place)).rejects.toThrow(/schema version \d+, newer than this Quarry/);
    } finally {
      await place.drop();
    }
  });
});


async function pause(ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
}
