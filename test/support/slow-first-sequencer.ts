import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Files that take a minute or more (the summary at the end of each run lists the slowest), longest first: a long file
 * that starts last leaves the cores idle but for it until it ends. On a clean clone vitest has no
 * durations yet and starts the largest files first, which is no guide to the longest.
 */
const SLOW_FILES = [
  'test/faults/kill-with-dashboard.test.ts',
  'test/api/fuzz.test.ts',
  'test/sources/connector-contract.test.ts',
  'test/dashboard/superset.test.ts',
  'test/sources/real-world-files.test.ts',
  'test/cli/demo-build.test.ts',
  'test/web/every-page.browser.test.ts',
  'test/cli/demo-first-start.test.ts',
  'test/sources/relational-db.test.ts',
  'test/security/reader-writes.test.ts',
  'test/security/template-injection.test.ts',
  'test/server/transform.test.ts',
];

function slowRank(spec: TestSpecification): number {
  const rank = SLOW_FILES.findIndex((file) => spec.moduleId.endsWith(file));
  return rank < 0 ? SLOW_FILES.length : rank;
}

/** Vitest's order (groups, projects, failed and longest first when it knows), with the known-slow files first in each project. */
export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const projects = new Map<string, TestSpecification[]>();
    for (const spec of sorted) projects.set(spec.project.name, [...(projects.get(spec.project.name) ?? []), spec]);
    // Array.prototype.sort is stable: within a rank, vitest's own order stays.
    return [...projects.values()].flatMap((specs) => specs.sort((a, b) => slowRank(a) - slowRank(b)));
  }
}
