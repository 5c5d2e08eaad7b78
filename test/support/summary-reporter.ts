import type { Reporter, TestModule } from 'vitest/node';

const SLOWEST_SHOWN = 10;

/**
 * Ends the run with the files that took longest, so the next slow test is seen, and the plain
 * `N passed, N failed, N skipped` line that CI reads.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: readonly TestModule[]): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const testModule of testModules) {
      if (testModule.state() === 'failed' && [...testModule.children.allTests()].length === 0) failed += 1;
      for (const test of testModule.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed += 1;
        else if (state === 'failed') failed += 1;
        else skipped += 1;
      }
    }
    process.stdout.write(`\nThe ${String(SLOWEST_SHOWN)} slowest test files:\n${slowestFiles(testModules).join('\n')}\n`);
    process.stdout.write(`\n${String(passed)} passed, ${String(failed)} failed, ${String(skipped)} skipped\n`);
  }
}

/** A file's own time: its set-up, imports and tests, as the worker that ran it measured them. */
function slowestFiles(testModules: readonly TestModule[]): string[] {
  const timed = testModules.map((testModule) => {
    const { duration, setupDuration, collectDuration, prepareDuration, environmentSetupDuration } = testModule.diagnostic();
    return { file: testModule.relativeModuleId, seconds: (duration + setupDuration + collectDuration + prepareDuration + environmentSetupDuration) / 1000 };
  });
  return timed.sort((a, b) => b.seconds - a.seconds).slice(0, SLOWEST_SHOWN)
    .map(({ file, seconds }) => `  ${seconds.toFixed(1).padStart(7)} s  ${file}`);
}
