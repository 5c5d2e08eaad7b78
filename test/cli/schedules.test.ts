import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUARRY_BIN } from '../support/quarry-process.ts';

function quarry(args: string[]) {
  const result = spawnSync(QUARRY_BIN, args, { encoding: 'utf8', env: { ...process.env, QUARRY_ADMIN_PASSWORD: 'a-good-password' }, stdio: ['ignore', 'pipe', 'pipe'] });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const SCHEDULES = `
schedules:
  - name: nightly
    cron: "0 3 * * *"
    timezone: UTC
    sync: [orders]
  - name: weekly
    cron: "0 6 * * 1"
    timezone: Europe/Paris
    sync: all
    enabled: false
`;

describe('quarry schedule', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'quarry-cli-schedules-'));
    expect(quarry(['init', dir, '--admin-email', 'a@example.com', '--non-interactive']).code).toBe(0);
    writeFileSync(path.join(dir, '.quarry', 'sources.yml'), 'sources:\n  - name: orders\n    type: local_files\n    local_files: { directory: data/orders }\n');
    mkdirSync(path.join(dir, 'data', 'orders'), { recursive: true });
    writeFileSync(path.join(dir, 'data', 'orders', 'a.csv'), 'id,amount\n1,10\n2,20\n3,30\n');
    writeFileSync(path.join(dir, '.quarry', 'project.yml'), readFileSync(path.join(dir, '.quarry', 'project.yml'), 'utf8') + SCHEDULES);
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists the schedules with their next and last runs', () => {
    const listed = quarry(['schedule', 'list', '--project', dir]);
    expect(listed.stderr).toBe('');
    expect(listed.code).toBe(0);
    const lines = listed.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^NAME +CRON +STATE +NEXT RUN +LAST RUN$/);
    expect(lines[1]).toMatch(/^nightly +0 3 \* \* \* \(UTC\) +enabled +\d{4}-\d\d-\d\dT03:00:00\.000Z +never$/);
    expect(lines[2]).toMatch(/^weekly +0 6 \* \* 1 \(Europe\/Paris\) +disabled +— +never$/);
  });

  it('runs a schedule in this process and records it, then refuses an unknown one', () => {
    const run = quarry(['schedule', 'run', 'nightly', '--project', dir]);
    expect(run.stderr).toBe('');
    expect(run).toMatchObject({ code: 0, stdout: 'Synced orders: 3 rows\nSchedule nightly finished\n' });
    expect(quarry(['schedule', 'list', '--project', dir]).stdout).toMatch(/nightly .* \d{4}-\d\d-\d\dT[\d:.]+Z success\n/);
    expect(quarry(['schedule', 'run', 'monthly', '--project', dir])).toEqual({ code: 1, stdout: '', stderr: 'quarry: No schedule named "monthly"\n' });
  });

  it('refuses a project whose schedule names a source sources.yml does not have, saying where', () => {
    const projectFile = path.join(dir, '.quarry', 'project.yml');
    writeFileSync(projectFile, readFileSync(projectFile, 'utf8').replace('sync: [orders]', 'sync: [ordrs]'));
    const listed = quarry(['schedule', 'list', '--project', dir]);
    expect(listed.code).toBe(1);
    expect(listed.stderr).toContain('.quarry/project.yml: schedules[0].sync[0]: no source named "ordrs" in sources.yml (did you mean "orders"?)');
  });
});
