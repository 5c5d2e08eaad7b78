import { execFile, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { QUARRY_BIN, spawnQuarry } from '../support/quarry-process.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'quarry-interrupted-'));
const PLATFORM_DB = path.join(dir, '.quarry', 'platform.db');

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function quarry(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(QUARRY_BIN, [...args, '--project', dir], { encoding: 'utf8' }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout, stderr });
    });
  });
}

function platformRows<T>(sql: string): T[] {
  if (!existsSync(PLATFORM_DB)) return [];
  const database = new DatabaseSync(PLATFORM_DB, { readOnly: true, timeout: 5000 });
  try {
    return database.prepare(sql).all() as T[];
  } finally {
    database.close();
  }
}

const runningJobs = (): { kind: string; status: string }[] => platformRows("SELECT kind, status FROM jobs WHERE status IN ('queued', 'running')");

/** The processes whose parent is `pid`. */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc').filter((entry) => /^\d+$/.test(entry)).flatMap((entry) => {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid ? [Number(entry)] : [];
    } catch {
      return [];
    }
  });
}

describe('commands stopped from the terminal', () => {
  it('a build stopped with Ctrl-C leaves no job running, and the next build runs', { timeout: 240_000 }, async () => {
    expect(spawnSync(QUARRY_BIN, ['init', dir, '--demo', '--admin-email', 'admin@example.com', '--admin-password', 'demo-password-123', '--non-interactive']).status).toBe(0);
    expect((await quarry(['sync', 'orders'])).code).toBe(0);

    // As a terminal delivers Ctrl-C: to the command's whole process group, dbt's worker included.
    const build = spawn(QUARRY_BIN, ['build', '--project', dir], { detached: true, stdio: 'ignore' });
    const exited = once(build, 'exit');
    await expect.poll(() => runningJobs().some((job) => job.kind === 'run'), { timeout: 60_000, interval: 50 }).toBe(true);
    process.kill(-(build.pid ?? 0), 'SIGINT');
    await exited;

    const again = await quarry(['build']);
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^5 of 5 models, seeds and snapshots built/m);
    expect(runningJobs()).toEqual([]);
    expect(platformRows<{ message: string }>('SELECT message FROM logs ORDER BY id DESC LIMIT 50').map((row) => row.message)).toContainEqual(
      expect.stringMatching(/^The run job \d+ was interrupted when the process running it \(pid \d+\) stopped; the previous data is intact$/),
    );
  });

  it('a service says where it listens, and when its terminal closes (SIGHUP) stops as with Ctrl-C, ending every process it started', { timeout: 120_000 }, async () => {
    const server = await spawnQuarry(dir);
    // It listens on a free port, not the configured one: the status says where.
    const status = await quarry(['status']);
    expect(status.stdout).toMatch(new RegExp(`^Server: running \\(pid ${String(server.child.pid)}\\) at http://127\\.0\\.0\\.1:${new URL(server.url).port}$`, 'm'));
    expect(status.stdout).toMatch(/^Jobs: none queued or running$/m);
    const children = childrenOf(server.child.pid ?? 0);
    expect(children.length).toBeGreaterThan(0);
    const exited = once(server.child, 'exit');
    server.child.kill('SIGHUP');
    const [code] = await exited as [number | null];
    expect(code).toBe(0);
    expect(server.output()).toContain('shutting down');
    for (const child of children) expect(existsSync(`/proc/${String(child)}`)).toBe(false);
  });

  it('a service stopped with Ctrl-C in its terminal does not take the file watcher for a crash', { timeout: 120_000 }, async () => {
    const server = spawn(QUARRY_BIN, ['start', '--project', dir, '--port', '0', '--no-dashboard'], { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    server.stdout.setEncoding('utf8').on('data', (chunk: string) => { output += chunk; });
    server.stderr.setEncoding('utf8').on('data', (chunk: string) => { output += chunk; });
    await expect.poll(() => output, { timeout: 60_000 }).toMatch(/Quarry is running at/);
    const exited = once(server, 'exit');
    process.kill(-(server.pid ?? 0), 'SIGINT');
    const [code] = await exited as [number | null];
    expect(code).toBe(0);
    expect(output).toContain('shutting down');
    expect(output).not.toContain('the file watcher exited');
  });
});
