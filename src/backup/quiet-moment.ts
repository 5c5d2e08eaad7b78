import { DatabaseSync } from 'node:sqlite';

/**
 * What the platform DB says of the jobs: the ones under way and how many have ended. Equal readings
 * before and after a backup, with none under way, mean no job changed the warehouse in between.
 */
export function readJobsFingerprint(platformDb: string): string {
  const database = new DatabaseSync(platformDb, { readOnly: true });
  try {
    const underWay = database.prepare("SELECT id, status FROM jobs WHERE status IN ('queued', 'running') ORDER BY id").all();
    const ended = database.prepare("SELECT count(*) AS n FROM jobs WHERE status NOT IN ('queued', 'running')").get() as { n: number };
    return JSON.stringify({ underWay, ended: ended.n });
  } finally {
    database.close();
  }
}

export function jobsAreUnderWay(fingerprint: string): boolean {
  return (JSON.parse(fingerprint) as { underWay: unknown[] }).underWay.length > 0;
}
