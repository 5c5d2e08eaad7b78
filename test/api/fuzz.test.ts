import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pythonExecutable } from '../../src/python/index.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';

/** Test cases per operation and phase: enough to find 500s and schema drift, small enough for a few minutes on 2 cores. */
const MAX_EXAMPLES = 100;
const RUN_TIMEOUT_MS = 8 * 60_000;

interface SchemathesisRun {
  readonly exitCode: number;
  readonly output: string;
}

/** Runs the test-tools env's schemathesis CLI; resolves with its exit code and everything it printed. */
function runSchemathesis(args: readonly string[], cwd: string): Promise<SchemathesisRun> {
  const schemathesis = path.join(path.dirname(pythonExecutable('test-tools')), 'schemathesis');
  return new Promise((resolve) => {
    execFile(schemathesis, args, {
      cwd, timeout: RUN_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, NO_COLOR: '1', COLUMNS: '160', SCHEMATHESIS_HOOKS: '' },
    }, (error, stdout, stderr) => {
      const exitCode = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      resolve({ exitCode, output: `${stdout}\n${stderr}` });
    });
  });
}

describe('API fuzzing with schemathesis', () => {
  let quarry: TestQuarry;
  let workDir: string;

  beforeAll(async () => {
    workDir = await mkdtemp(path.join(tmpdir(), 'quarry-fuzz-'));
    quarry = await startQuarry({
      // A file source with a CSV in it, so the source and file operations have something real to find.
      sourcesYaml: 'sources:\n  - name: files\n    type: csv\n    csv: { directory: data/files }\n',
      prepare: async (dir) => {
        await mkdir(path.join(dir, 'data', 'files'), { recursive: true });
        await writeFile(path.join(dir, 'data', 'files', 'people.csv'), 'id,name\n1,ann\n2,bob\n');
      },
    });
  });
  afterAll(async () => {
    await quarry.close();
    await rm(workDir, { recursive: true, force: true });
  });

  it('finds no server error and no response outside its documented schema in any operation', async () => {
    const created = await quarry.request('POST', '/api/auth/api-keys', { as: 'admin', body: { name: 'schemathesis' } });
    expect(created.status).toBe(201);
    const key = created.json.key as string;
    const document = await quarry.request('GET', '/api/openapi.json', { apiKey: key });
    expect(document.status).toBe(200);
    const schemaFile = path.join(workDir, 'openapi.json');
    await writeFile(schemaFile, document.text);
    // The CSV file operations refuse any source but a file source, so random names never reach their logic:
    // give them the real one (schemathesis reads schemathesis.toml from its working directory).
    await writeFile(path.join(workDir, 'schemathesis.toml'), [
      '[[operations]]', 'include-path-regex = "/(upload-csv|csv-files)$"', '[operations.parameters]', '"path.source_name" = "files"', '',
    ].join('\n'));

    const run = await runSchemathesis([
      'run', schemaFile,
      '--url', quarry.url,
      '--header', `Authorization: Bearer ${key}`,
      '--checks', 'not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance',
      '--max-examples', String(MAX_EXAMPLES),
      '--seed', '20260101',
      '--workers', '2',
      '--request-timeout', '30',
      '--suppress-health-check', 'all',
      '--no-shrink',
      '--output-sanitize', 'true',
    ], workDir);
    expect(run.output).toMatch(/test cases/i); // it did run: an unreachable schema or a bad flag prints no summary
    if (run.exitCode !== 0) expect.fail(`schemathesis reported failures (exit ${String(run.exitCode)}):\n${run.output}`);
  }, RUN_TIMEOUT_MS + 60_000);
});
