import path from 'node:path';
import { Cron } from 'croner';
import { z } from 'zod';
import { ConfigError } from '../errors.ts';
import { closestMatch } from './closest-match.ts';
import { BUCKET_URL, BUCKET_URL_PROBLEM } from './bucket-url.ts';
import { formatProblem } from './format-issues.ts';
import type { ProjectPaths } from './project-paths.ts';

/** Spelled out rather than taken from the source types' fields: the project files depend on no other part of Quarry. */
const NonEmptyString = z.string().min(1);

/** Schedule names appear in URLs (`/api/schedules/{name}/run`) and in `requested_by` (`schedule:nightly`). */
const ScheduleName = z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, {
  error: (issue) => `${JSON.stringify(issue.input)} is not a valid name: use lowercase letters, digits, hyphens and underscores`,
}).max(63);

/** Five fields (minute hour day-of-month month day-of-week), parsed by croner: the pattern is the library's to judge. */
const CronPattern = z.string().superRefine((pattern, context) => {
  const problem = cronProblem(pattern);
  if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
});

const TimeZone = z.string().refine(isTimeZone, {
  error: (issue) => `${JSON.stringify(issue.input)} is not an IANA time zone such as Europe/Paris or UTC`,
});

/** What a scheduled run syncs: every enabled source, the named ones, or the enabled ones with any of the tags. */
const ScheduleSync = z.union([
  z.literal('all'),
  z.array(NonEmptyString).min(1),
  z.strictObject({ tags: z.array(NonEmptyString).min(1) }),
], { error: 'expected "all", a list of source names, or {tags: [...]}' });

/** A schedule that syncs sources (and optionally runs the models downstream): the kind left out. */
const SyncSchedule = z.strictObject({
  name: ScheduleName,
  kind: z.literal('sync'),
  cron: CronPattern,
  /** Read in this zone (daylight-saving changes included); the host's zone when absent. */
  timezone: TimeZone.default(hostTimeZone),
  sync: ScheduleSync,
  /** After the syncs, run the models downstream of the sources that synced. */
  transform: z.boolean().default(false),
  enabled: z.boolean().default(true),
  /** Tries after a sync fails on a transient error (network, 5xx, 429 after the connector's own retries). */
  retries: z.int().min(0).max(10).default(2),
});

/** A schedule that backs the project up into a bucket (as `quarry backup s3://...` does), keeping the newest `keep` there. */
const BackupSchedule = z.strictObject({
  name: ScheduleName,
  kind: z.literal('backup'),
  cron: CronPattern,
  timezone: TimeZone.default(hostTimeZone),
  /** `s3://bucket/prefix`, reached as the object_store: section says. */
  to: z.string().refine((url) => url.startsWith('s3://') && BUCKET_URL.test(url), BUCKET_URL_PROBLEM),
  /** How many backups to keep under the prefix; older ones are deleted after each new one. */
  keep: z.int().min(1).max(1000).default(14),
  enabled: z.boolean().default(true),
});

/** The kind defaults to `sync`, so the schedules written before backups existed keep their meaning. */
const Schedule = z.preprocess(
  (entry) => (typeof entry === 'object' && entry !== null && !Array.isArray(entry) && !('kind' in entry) ? { ...entry, kind: 'sync' } : entry),
  z.discriminatedUnion('kind', [SyncSchedule, BackupSchedule], { error: 'expected sync (the default) or backup' }),
);

export const SchedulesSchema = z.array(Schedule).default(() => []).superRefine((schedules, context) => {
  const seen = new Set<string>();
  for (const [index, schedule] of schedules.entries()) {
    if (seen.has(schedule.name)) context.addIssue({ code: 'custom', path: [index, 'name'], message: `another schedule is already named "${schedule.name}"` });
    seen.add(schedule.name);
  }
});

export type ScheduleConfig = z.output<typeof Schedule>;
export type SyncScheduleConfig = z.output<typeof SyncSchedule>;
export type BackupScheduleConfig = z.output<typeof BackupSchedule>;
export type ScheduleSyncConfig = SyncScheduleConfig['sync'];

/**
 * What the schedules name that sources.yml does not have: each problem located in project.yml
 * (`schedules[0].sync[1]: no source named "ordrs" (did you mean "orders"?)`).
 */
export function scheduleSourceProblems(
  schedules: readonly ScheduleConfig[], sources: readonly { name: string; tags: readonly string[] }[], label: string,
): string[] {
  const names = sources.map((source) => source.name);
  const tags = new Set(sources.flatMap((source) => source.tags));
  const problems: string[] = [];
  for (const [index, schedule] of schedules.entries()) {
    if (schedule.kind !== 'sync') continue;
    const sync = schedule.sync;
    if (sync === 'all') continue;
    if (Array.isArray(sync)) {
      for (const [position, name] of sync.entries()) {
        if (names.includes(name)) continue;
        const suggestion = closestMatch(name, names);
        problems.push(formatProblem(label, ['schedules', index, 'sync', position],
          `no source named "${name}" in sources.yml${suggestion === undefined ? '' : ` (did you mean "${suggestion}"?)`}`));
      }
    } else {
      for (const [position, tag] of sync.tags.entries()) {
        if (!tags.has(tag)) problems.push(formatProblem(label, ['schedules', index, 'sync', 'tags', position], `no source in sources.yml has the tag "${tag}"`));
      }
    }
  }
  return problems;
}

/** Throws a ConfigError, located in project.yml, when a schedule names a source or tag sources.yml does not have. */
export function assertScheduledSourcesExist(
  paths: ProjectPaths, schedules: readonly ScheduleConfig[], sources: readonly { name: string; tags: readonly string[] }[],
): void {
  const problems = scheduleSourceProblems(schedules, sources, path.relative(paths.root, paths.projectFile));
  if (problems.length > 0) throw new ConfigError(problems);
}

/** The zone the host's clock is read in, the default for a schedule without `timezone`. */
export function hostTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

function cronProblem(pattern: string): string | undefined {
  const fields = pattern.trim().split(/\s+/).length;
  if (fields !== 5) return `expected five cron fields (minute hour day-of-month month day-of-week), got ${String(fields)} in "${pattern}"`;
  try {
    new Cron(pattern, { mode: '5-part' });
    return undefined;
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^CronPattern:\s*/, '') : String(error);
    return `"${pattern}" is not a valid cron expression: ${reason}`;
  }
}
