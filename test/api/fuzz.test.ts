import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pythonExecutable } from '../../src/python/index.ts';
import { EMAILS, startQuarry, type TestQuarry } from '../support/quarry.ts';

/**
 * Test cases per operation and phase: enough to find 500s and schema drift (the coverage phase adds the boundary
 * values of every parameter on top), few enough that the fuzzer's own Python, nearly all of this file's CPU, takes
 * about a minute on 2 cores.
 */
const MAX_EXAMPLES = 50;
const RUN_TIMEOUT_MS = 8 * 60_000;

interface SchemathesisRun {
  readonly exitCode: number;
  readonly output: string;
}

const HOOKS = path.join(import.meta.dirname, 'schemathesis_hooks.py');

/** Runs the test-tools env's schemathesis CLI with our hooks; resolves with its exit code and everything it printed. */
function runSchemathesis(args: readonly string[], cwd: string, hookEnv: Record<string, string>): Promise<SchemathesisRun> {
  const schemathesis = path.join(path.dirname(pythonExecutable('test-tools')), 'schemathesis');
  return new Promise((resolve) => {
    execFile(schemathesis, args, {
      cwd, timeout: RUN_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, NO_COLOR: '1', COLUMNS: '160', SCHEMATHESIS_HOOKS: HOOKS, ...hookEnv },
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
      // A file source with a CSV in it, so the source and file operations have something real to find; and a source over a
      // bucket, disabled (nothing syncs it), whose objects are listed from its ledger without reaching the bucket.
      sourcesYaml: 'sources:\n  - name: files\n    type: csv\n    csv: { directory: data/files }\n'
        + '  - name: bucket\n    type: filesystem\n    enabled: false\n    filesystem: { bucket_url: "s3://fuzz-exports/2026" }\n',
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
    const sessionToken = (await quarry.login('viewer')).slice('svc_session='.length);
    const filesDir = path.join(quarry.dir, 'data', 'files');
    // schemathesis reads schemathesis.toml from its working directory.
    await writeFile(path.join(workDir, 'schemathesis.toml'), [
      // Each operation gets the credentials its `security` names: the key, or a session for the two-factor settings.
      '[auth.openapi.apiKey]', `bearer = ${tomlString(key)}`,
      '[auth.openapi.session]', `api_key = ${tomlString(sessionToken)}`,
      // Deleting a file needs the full path of one of the source's files (the hooks put it back before each such case).
      '[dictionaries.csv_files]', `values = [${tomlString(path.join(filesDir, 'people.csv'))}]`,
      // An operation that refuses every request generated for it as invalid is not really tested: that fails the run.
      '[warnings]', 'fail-on = ["validation_mismatch"]',
      // The CSV file operations refuse any source but a file source, so random names never reach their logic; half the
      // deletions name a real file. Both in one block: schemathesis takes `parameters` from the first block that matches.
      '[[operations]]', 'include-path-regex = "/(upload-csv|csv-files)$"', '[operations.parameters]', '"path.source_name" = "files"',
      // Only a source over object storage has objects: any other name is refused before the listing is read.
      '[[operations]]', 'include-path-regex = "/objects$"', '[operations.parameters]', '"path.source_name" = "bucket"',
      '"query.file_path" = { dictionary = "csv_files", probability = 0.5 }',
      // Where no generator can know what the handler accepts, a refusal says nothing about the schema, so it does not
      // fail the run: a right two-factor code is a function of the enrolment's secret and the time (random six-digit codes
      // reach the handler and are refused as wrong; test/server/account.test.ts covers the accepted ones), and the
      // coverage phase draws file paths from the schema alone, never from the dictionary, so they name no existing file.
      // Verifying a code needs a two-factor-pending session, which the fuzzer never holds (a full one is refused 409
      // before the code is read: test/security/brute-force.test.ts covers it); a backfill window is refused for the
      // file sources the fuzzer syncs (test/server/backfill.test.ts covers the types that take one); random strings are
      // not SQL, so a query is refused by DuckDB's parser (test/server/query.test.ts covers the accepted and refused ones).
      // Adding a source validates its `config` against its type's own section schema, one per type, which one request
      // schema cannot state; once the fuzzer learns the sources.yml version, random sections are refused
      // (test/server/source-config.test.ts covers the accepted ones); so are an edit's and a test-before-saving's
      // (test/server/source-changes.test.ts), and an edit names a source the fuzzer never added.
      '[[operations]]', 'include-path-regex = "^/api/auth/2fa/(enable|disable|verify)$|/csv-files$|/sources/[^/]+/sync$|^/api/query$|^/api/sources$|^/api/source-test$"', '[operations.warnings]', 'display = ["missing_auth"]',
      '[[operations]]', 'include-path-regex = "^/api/sources/[^/]+$"', 'include-method = "PUT"', '[operations.warnings]', 'display = ["missing_auth"]',
      '',
    ].join('\n'));

    const run = await runSchemathesis([
      'run', schemaFile,
      '--url', quarry.url,
      // Cookie-authenticated writes need it (CSRF); API-key requests ignore it.
      '--header', 'X-Requested-With: XMLHttpRequest',
      '--checks', 'not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance',
      '--max-examples', String(MAX_EXAMPLES),
      '--seed', '20260101',
      // One worker: schemathesis's coverage phase parses Python source in threads, which trips a CPython 3.11 AST
      // race ("AST constructor recursion depth mismatch") now and then; one worker is as fast, the server being the bottleneck.
      '--workers', '1',
      '--request-timeout', '30',
      '--suppress-health-check', 'all',
      '--no-shrink',
      '--output-sanitize', 'true',
    ], workDir, { QUARRY_FUZZER_KEY_ID: created.json.id as string, QUARRY_FUZZER_SESSION_EMAIL: EMAILS.viewer, QUARRY_FUZZER_FILES_DIR: filesDir });
    expect(run.output).toMatch(/test cases/i); // it did run: an unreachable schema or a bad flag prints no summary
    if (run.exitCode !== 0) expect.fail(`schemathesis reported failures (exit ${String(run.exitCode)}):\n${run.output}`);
  }, RUN_TIMEOUT_MS + 60_000);
});

/** A TOML basic string; JSON's escapes are TOML's for the paths and tokens written here. */
function tomlString(value: string): string {
  return JSON.stringify(value);
}
