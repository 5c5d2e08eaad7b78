import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A folder that lives as long as the test run, for what its files build once and share. */
    runFolder: string;
  }
}

/** vitest's global set-up: one folder per run, removed at its end. */
export default function setup(project: TestProject): () => void {
  const folder = mkdtempSync(path.join(tmpdir(), 'quarry-test-run-'));
  project.provide('runFolder', folder);
  return () => { rmSync(folder, { recursive: true, force: true }); };
}
