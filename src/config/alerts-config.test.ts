import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { configProblemsFrom, configProblemsOf } from '../../test/support/config-problems.ts';
import { parseSources } from '../sources/config/index.ts';
import { loadProjectConfig, projectPaths } from './index.ts';

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function loadProject(yamlText: string): ReturnType<typeof loadProjectConfig> {
  const dir = mkdtempSync(path.join(tmpdir(), 'quarry-alerts-config-'));
  directories.push(dir);
  mkdirSync(path.join(dir, '.quarry'));
  writeFileSync(path.join(dir, '.quarry', 'project.yml'), yamlText);
  return loadProjectConfig(projectPaths(dir));
}

describe('alerts in project.yml', () => {
  it('reads webhook and email alerts with their defaults', () => {
    const config = loadProject(`name: Ops
alerts:
  - name: team
    webhook_url_env: ALERT_WEBHOOK_URL
    on: [sync_failed, transform_run_failed, source_stale, schedule_missed]
  - name: ops-mail
    email: {host: smtp.example.com, user_env: SMTP_USER, password_env: SMTP_PASSWORD, from: quarry@example.com, to: [data@example.com]}
    on: [sync_failed]
`);
    expect(config.alerts).toEqual([
      { name: 'team', webhook_url_env: 'ALERT_WEBHOOK_URL', on: ['sync_failed', 'transform_run_failed', 'source_stale', 'schedule_missed'] },
      {
        name: 'ops-mail', on: ['sync_failed'],
        email: {
          host: 'smtp.example.com', port: 587, tls: 'starttls', user_env: 'SMTP_USER', password_env: 'SMTP_PASSWORD',
          from: 'quarry@example.com', to: ['data@example.com'],
        },
      },
    ]);
    expect(loadProject('name: Ops\n').alerts).toEqual([]);
  });

  it('reports each mistake with its location, every one at once', () => {
    expect(configProblemsFrom(() => loadProject(`name: Ops
alerts:
  - name: team
    webhook_url_env: alert-webhook
    on: [sync_failed, sync_fail]
  - name: both
    webhook_url_env: HOOK
    email: {host: smtp.example.com, from: quarry@example.com, to: [nobody]}
    on: []
  - name: neither
    on: [source_stale]
    channel: "#data"
  - name: mail
    email: {host: smtp.example.com, user_env: SMTP_USER, from: quarry@example.com, to: [a@example.com], tls: ssl}
    on: [sync_failed]
`))).toEqual([
      '.quarry/project.yml: alerts[0].webhook_url_env: expected an environment variable name such as ALERT_WEBHOOK_URL',
      '.quarry/project.yml: alerts[0].on[1]: expected one of sync_failed, transform_run_failed, source_stale, schedule_missed, transform_test_failed, got "sync_fail"',
      '.quarry/project.yml: alerts[1].email.to[0]: expected an email address, got "nobody"',
      '.quarry/project.yml: alerts[1].on: must not be empty',
      '.quarry/project.yml: alerts[1]: an alert needs exactly one of webhook_url_env or email',
      '.quarry/project.yml: alerts[2]: unknown field channel',
      '.quarry/project.yml: alerts[2]: an alert needs exactly one of webhook_url_env or email',
      '.quarry/project.yml: alerts[3].email.tls: expected one of starttls, implicit, none, got "ssl"',
    ]);
  });

  it('refuses an alert with both or neither destination, credentials by halves and duplicate names', () => {
    expect(configProblemsFrom(() => loadProject(`name: Ops
alerts:
  - {name: team, webhook_url_env: HOOK, email: {host: smtp.example.com, from: q@example.com, to: [a@example.com]}, on: [sync_failed]}
  - {name: neither, on: [sync_failed]}
  - {name: mail, email: {host: smtp.example.com, user_env: SMTP_USER, from: q@example.com, to: [a@example.com]}, on: [sync_failed]}
`))).toEqual([
      '.quarry/project.yml: alerts[0]: an alert needs exactly one of webhook_url_env or email',
      '.quarry/project.yml: alerts[1]: an alert needs exactly one of webhook_url_env or email',
      '.quarry/project.yml: alerts[2].email.password_env: user_env and password_env go together',
    ]);
    expect(configProblemsFrom(() => loadProject(`name: Ops
alerts:
  - {name: team, webhook_url_env: HOOK, on: [sync_failed]}
  - {name: team, webhook_url_env: OTHER_HOOK, on: [source_stale]}
`))).toEqual(['.quarry/project.yml: alerts[1].name: duplicate alert name "team"']);
  });
});

describe('freshness in sources.yml', () => {
  const source = (freshness: string) => `sources:
  - name: orders
    type: local_files
    freshness: ${freshness}
    local_files: {directory: data/orders}
`;

  it('reads the limits of a source', () => {
    expect(parseSources(source('{warn_after_hours: 24, error_after_hours: 48}'))[0]?.freshness).toEqual({ warn_after_hours: 24, error_after_hours: 48 });
    expect(parseSources(source('{error_after_hours: 6}'))[0]?.freshness).toEqual({ error_after_hours: 6 });
  });

  it('reports limits that are missing, not positive, out of order or unknown', () => {
    expect(configProblemsOf(source('{}'))).toEqual(['sources.yml: sources[0].freshness: set warn_after_hours, error_after_hours or both']);
    expect(configProblemsOf(source('{warn_after_hours: 0}'))).toEqual(['sources.yml: sources[0].freshness.warn_after_hours: must be greater than 0']);
    expect(configProblemsOf(source('{warn_after_hours: 48, error_after_hours: 24}'))).toEqual([
      'sources.yml: sources[0].freshness.error_after_hours: error_after_hours must not be less than warn_after_hours',
    ]);
    expect(configProblemsOf(source('{warn_after_days: 2}'))).toEqual([
      'sources.yml: sources[0].freshness: unknown field warn_after_days',
      'sources.yml: sources[0].freshness: set warn_after_hours, error_after_hours or both',
    ]);
  });
});
