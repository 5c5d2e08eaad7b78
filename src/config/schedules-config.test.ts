import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors.ts';
import { parseOrThrow } from './format-issues.ts';
import { ProjectConfigSchema } from './project-config.ts';
import { hostTimeZone, scheduleSourceProblems } from './schedules-config.ts';

const LABEL = '.quarry/project.yml';

function problemsOf(schedules: unknown): readonly string[] {
  try {
    parseOrThrow(ProjectConfigSchema, { name: 'p', schedules }, LABEL);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('the schedules loaded without a problem');
}

describe('schedules in project.yml', () => {
  it('fills in the defaults: the host\'s time zone, no transform, enabled, two retries', () => {
    const config = parseOrThrow(ProjectConfigSchema, { name: 'p', schedules: [{ name: 'nightly', cron: '0 3 * * *', sync: 'all' }] }, LABEL);
    expect(config.schedules).toEqual([{ name: 'nightly', kind: 'sync', cron: '0 3 * * *', timezone: hostTimeZone(), sync: 'all', transform: false, enabled: true, retries: 2 }]);
    expect(parseOrThrow(ProjectConfigSchema, { name: 'p' }, LABEL).schedules).toEqual([]);
  });

  it('reads a backup schedule into a bucket, keeping 14 unless told, once object_store: says how to reach it', () => {
    const config = parseOrThrow(ProjectConfigSchema, {
      name: 'p', object_store: { endpoint: '127.0.0.1:8333' }, schedules: [{ name: 'offsite', kind: 'backup', cron: '0 2 * * *', to: 's3://team-backups/quarry' }],
    }, LABEL);
    expect(config.schedules).toEqual([{ name: 'offsite', kind: 'backup', cron: '0 2 * * *', timezone: hostTimeZone(), to: 's3://team-backups/quarry', keep: 14, enabled: true }]);
    expect(problemsOf([{ name: 'offsite', kind: 'backup', cron: '0 2 * * *', to: 's3://team-backups/quarry' }]))
      .toEqual([`${LABEL}: schedules[0].to: a backup into s3://team-backups/quarry needs an object_store: section with the endpoint and the .env variables of its credentials`]);
    expect(problemsOf([{ name: 'offsite', kind: 'backup', cron: '0 2 * * *', to: '/var/backups', keep: 0, sync: 'all' }]).join('\n'))
      .toMatch(/schedules\[0\]\.to: expected s3:\/\/bucket\/prefix[\s\S]*schedules\[0\]\.keep: must be at least 1[\s\S]*schedules\[0\].*sync/);
    const lakeInBucket = { name: 'p', object_store: {}, warehouse: { data_path: 's3://team-lake/quarry' } };
    expect(() => parseOrThrow(ProjectConfigSchema, { ...lakeInBucket, schedules: [{ name: 'offsite', kind: 'backup', cron: '0 2 * * *', to: 's3://team-lake/quarry/backups' }] }, LABEL))
      .toThrow(/schedules\[0\]\.to: s3:\/\/team-lake\/quarry\/backups overlaps the lake's data in s3:\/\/team-lake\/quarry, whose maintenance deletes what the lake does not know/);
    expect(parseOrThrow(ProjectConfigSchema, { ...lakeInBucket, schedules: [{ name: 'offsite', kind: 'backup', cron: '0 2 * * *', to: 's3://team-lake/backups' }] }, LABEL).schedules).toHaveLength(1);
    expect(problemsOf([{ name: 'offsite', kind: 'vacuum', cron: '0 2 * * *' }])).toEqual([`${LABEL}: schedules[0].kind: expected sync (the default) or backup`]);
  });

  it('reports a cron expression croner refuses, or one without exactly five fields, at its place', () => {
    expect(problemsOf([{ name: 'a', cron: '61 * * * *', sync: 'all' }]))
      .toEqual([`${LABEL}: schedules[0].cron: "61 * * * *" is not a valid cron expression: Invalid value for minute: 61`]);
    expect(problemsOf([{ name: 'a', cron: '0 0 3 * * *', sync: 'all' }]))
      .toEqual([`${LABEL}: schedules[0].cron: expected five cron fields (minute hour day-of-month month day-of-week), got 6 in "0 0 3 * * *"`]);
  });

  it('reports an unknown time zone, a bad sync value and a duplicate name, each at its place', () => {
    expect(problemsOf([
      { name: 'a', cron: '0 3 * * *', timezone: 'Mars/Olympus', sync: 'all' },
      { name: 'b', cron: '0 3 * * *', sync: 'everything' },
      { name: 'a', cron: '0 4 * * *', sync: ['orders'], retries: -1 },
    ])).toEqual([
      `${LABEL}: schedules[0].timezone: "Mars/Olympus" is not an IANA time zone such as Europe/Paris or UTC`,
      `${LABEL}: schedules[1].sync: expected "all", a list of source names, or {tags: [...]}`,
      `${LABEL}: schedules[2].retries: must be at least 0`,
    ]);
    expect(problemsOf([{ name: 'a', cron: '0 3 * * *', sync: 'all' }, { name: 'a', cron: '0 4 * * *', sync: 'all' }]))
      .toEqual([`${LABEL}: schedules[1].name: another schedule is already named "a"`]);
  });

  it('names the sources and tags sources.yml does not have, suggesting the near miss', () => {
    const sources = [{ name: 'orders', tags: ['daily'] }, { name: 'customers', tags: [] }];
    const config = parseOrThrow(ProjectConfigSchema, {
      name: 'p',
      schedules: [
        { name: 'a', cron: '0 3 * * *', sync: ['orders', 'ordrs', 'payments'] },
        { name: 'b', cron: '0 3 * * *', sync: { tags: ['daily', 'weekly'] } },
        { name: 'c', cron: '0 3 * * *', sync: 'all' },
      ],
    }, LABEL);
    expect(scheduleSourceProblems(config.schedules, sources, LABEL)).toEqual([
      `${LABEL}: schedules[0].sync[1]: no source named "ordrs" in sources.yml (did you mean "orders"?)`,
      `${LABEL}: schedules[0].sync[2]: no source named "payments" in sources.yml`,
      `${LABEL}: schedules[1].sync.tags[1]: no source in sources.yml has the tag "weekly"`,
    ]);
  });
});
