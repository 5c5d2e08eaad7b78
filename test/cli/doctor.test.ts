import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/free-port.ts';
import { QUARRY_BIN } from '../support/quarry-process.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'quarry-doctor-'));

/** Runs `quarry doctor` as a user would; asynchronous, so a port this process holds stays held. */
function doctor(project: string, env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(QUARRY_BIN, ['doctor', '--project', project], { env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk; });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
    child.on('close', (code) => { resolve({ code, stdout, stderr }); });
  });
}

const projectFile = path.join(dir, '.quarry', 'project.yml');
let webPort: number;

/** Points the project's web port at `port` (another program may hold the default 8800 on a shared machine). */
function setWebPort(port: number): void {
  writeFileSync(projectFile, readFileSync(projectFile, 'utf8').replace(/^ {2}port: \d+$/m, `  port: ${String(port)}`));
}

beforeAll(async () => {
  spawnSync(QUARRY_BIN, ['init', dir, '--admin-email', 'a@example.com', '--admin-password', 'a-good-password', '--non-interactive']);
  webPort = await freePort();
  setWebPort(webPort);
});
afterAll(() => { rmSync(dir, { recursive: true, force: true }); });

describe('quarry doctor', () => {
  it('checks the machine and the project, one line each, and passes on a fresh project', async () => {
    const run = await doctor(dir);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    for (const check of ['Node', 'Python environment dbt', 'Python environment dlt', 'Python environment superset', 'DuckDB extensions', 'Disk',
      `Port ${String(webPort)} (web)`, 'Platform database', 'Jobs', 'Warehouse', 'Dashboard tool']) {
      expect(run.stdout).toContain(`✓ ${check}: `);
    }
    expect(run.stdout).toContain('Warehouse: not created yet: the first sync creates it');
    expect(run.stdout.trim().endsWith('All checks passed.')).toBe(true);
  }, 120_000);

  it('names each problem with what to run: a missing Python environment, a taken port, a damaged platform database', async () => {
    const port = await freePort();
    setWebPort(port);
    const squatter: Server = createServer();
    await new Promise<void>((resolve) => { squatter.listen(port, '127.0.0.1', resolve); });
    writeFileSync(path.join(dir, '.quarry', 'platform.db'), 'this is not a database');
    const emptyEnvs = mkdtempSync(path.join(tmpdir(), 'quarry-no-envs-'));
    try {
      const run = await doctor(dir, { QUARRY_PYTHON_ENVS_DIR: emptyEnvs });
      expect(run.code).toBe(1);
      expect(run.stderr).toBe('quarry: 6 problem(s) found; each says what to run\n'); // three environments, the port, the database, the dashboard tool
      expect(run.stdout).toMatch(/✗ Python environment dbt: The dbt Python environment is not installed\n {4}→ run \S+\/bin\/setup/);
      expect(run.stdout).toMatch(new RegExp(`✗ Port ${String(port)} \\(web\\): taken by another program on 127\\.0\\.0\\.1\\n {4}→ stop that program, or choose another port`));
      expect(run.stdout).toMatch(/✗ Platform database: .*platform\.db cannot be read: .*\n {4}→ /);
      expect(run.stdout).toMatch(/✗ Dashboard tool: the superset environment is not installed/);
    } finally {
      squatter.close();
      rmSync(emptyEnvs, { recursive: true, force: true });
    }
  }, 120_000);
});
