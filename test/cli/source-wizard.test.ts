import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { QUARRY_BIN } from '../support/quarry-process.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'quarry-wizard-'));

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const ENTER = '\r';
const DOWN = '\u001b[B';

/**
 * Drives the interactive wizard through a pseudo-terminal (util-linux `script`), as a person would:
 * each step waits for its prompt to appear, then types.
 */
async function converse(args: string[], steps: readonly [prompt: string, keys: string][]): Promise<{ code: number | null; screen: string }> {
  const command = [QUARRY_BIN, ...args].map((word) => `'${word.replaceAll("'", "'\\''")}'`).join(' ');
  const child = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, TERM: 'xterm' } });
  let screen = '';
  let waiting: { text: string; resolve: () => void } | undefined;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    screen += chunk;
    if (waiting !== undefined && screen.includes(waiting.text)) {
      const { resolve } = waiting;
      waiting = undefined;
      resolve();
    }
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  let seen = 0;
  for (const [prompt, keys] of steps) {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => { reject(new Error(`no prompt "${prompt}"; the screen shows:\n${screen}`)); }, 20_000);
      const found = (): void => { clearTimeout(timer); resolve(); };
      if (screen.indexOf(prompt, seen) >= 0) found();
      else waiting = { text: prompt, resolve: found };
    });
    seen = screen.lastIndexOf(prompt) + prompt.length;
    for (const key of keys.split(/(?=\r|\u001b\[B)/)) {
      child.stdin.write(key);
      await new Promise((resolve) => setTimeout(resolve, 60));
    }
  }
  return { code: await exited, screen };
}

describe('quarry source add, the wizard', () => {
  it('walks category, type, name and fields, explains the types it does not offer, tests and syncs', async () => {
    expect(spawnSync(QUARRY_BIN, ['init', dir, '--admin-email', 'a@example.com', '--admin-password', 'a-good-password', '--non-interactive']).status).toBe(0);
    mkdirSync(path.join(dir, 'data', 'orders'), { recursive: true });
    writeFileSync(path.join(dir, 'data', 'orders', 'a.csv'), 'id,amount\n1,10\n2,20\n');
    const { code, screen } = await converse(['source', 'add', '--project', dir], [
      ['What kind of source?', ENTER], // Local & Custom
      ['Which type?', ENTER], // local_files
      ['Name', `orders${ENTER}`],
      ['directory', `data/orders${ENTER}`],
      ['file pattern', ENTER],
      ['csv as YAML', ENTER], // read_csv options: blank, so each file's dialect is detected
      ['notes', ENTER],
      ['Test the connection now?', ENTER],
      ['Run a first sync now?', `y${ENTER}`],
    ]);
    expect(code).toBe(0);
    // The types of the category it does not offer are listed with the reason each is not offered.
    expect(screen).toContain('csv (None) hidden; use local_files, or filesystem by hand');
    expect(screen).toContain('Connection test passed: 1 file(s) match * in');
    expect(screen).toContain('Synced orders: 2 rows');
    expect(readFileSync(path.join(dir, '.quarry', 'sources.yml'), 'utf8')).toMatch(/- name: orders\n\s+type: local_files\n\s+staging_column_names: snake_case\n\s+local_files:\n\s+directory: data\/orders\n/);
  });

  it('asks for a credential without echoing it and keeps it out of sources.yml', async () => {
    const { code, screen } = await converse(['source', 'add', '--project', dir], [
      ['What kind of source?', `${DOWN}${DOWN}${ENTER}`], // Business & CRM
      ['Which type?', ENTER], // crm_a
      ['Name', `hubspot${ENTER}`],
      ['api key env', ENTER],
      ['Value of CRM_A_API_KEY', `pat-secret-value${ENTER}`],
      ['resources', ENTER],
      ['API root', ENTER],
      ['Test the connection now?', `n${ENTER}`],
      ['Run a first sync now?', ENTER],
    ]);
    expect(code).toBe(0);
    expect(screen).not.toContain('pat-secret-value');
    expect(screen).toContain('Added the crm_a source "hubspot"');
    expect(readFileSync(path.join(dir, '.quarry', 'sources.yml'), 'utf8')).not.toContain('pat-secret-value');
    expect(readFileSync(path.join(dir, '.env'), 'utf8')).toContain("CRM_A_API_KEY='pat-secret-value'");
  });
});
