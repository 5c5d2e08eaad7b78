import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { signalProcessGroup } from '../../child-process/index.ts';
import { PythonEnvironmentError, pythonExecutable } from '../../python/index.ts';
import type { Connector, ExtractContext } from '../connector.ts';
import { PIPELINES_FOLDER, pipelineModuleProblem } from '../pipeline-module.ts';
import { requireEnv } from '../rest/index.ts';
import { SyncFailedError } from '../sync-failed-error.ts';
import { defineSourceType, SourceName, refuseSecretLiterals, sectionOf } from '../type-definition/index.ts';

const PythonModule = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$/, {
  error: (issue) => `${JSON.stringify(issue.input)} is not a Python module name`,
});
const PythonIdentifier = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, {
  error: (issue) => `${JSON.stringify(issue.input)} is not a Python function name`,
});

const FunctionArguments = z.record(z.string(), z.unknown()).superRefine((values, context) => {
  refuseSecretLiterals(values, context, 'keep it in an environment variable and write env:NAME here');
});

/** `pipeline_name` and `dataset_name` default to the source's name, which only the loader knows. */
export const NativePipelineSection = z.strictObject({
  source_module: PythonModule,
  source_function: PythonIdentifier,
  function_kwargs: FunctionArguments.default(() => ({})),
  pipeline_name: SourceName.optional(),
  dataset_name: SourceName.optional(),
});
export type NativePipelineSection = z.output<typeof NativePipelineSection>;

/** The section as a parsed source holds it: the pipeline and dataset are named after the source unless told otherwise. */
export type ResolvedNativePipelineSection = NativePipelineSection & { pipeline_name: string; dataset_name: string };

const RUNNER = path.join(import.meta.dirname, '..', 'native', 'run_pipeline.py');
const ENV_REFERENCE = /^env:([A-Z_][A-Z0-9_]*)$/;
const STDERR_LINES_KEPT = 40;
const MANIFEST_MAX_CHARS = 1_000_000;

interface Manifest {
  readonly tables?: { name: string; file: string; rows: number }[];
  readonly error?: string;
}

/** `function_kwargs` with every `env:NAME` string replaced by that variable's value; the values, to mask in messages. */
function resolveEnvReferences(value: unknown, env: ExtractContext['env'], secrets: Set<string>): unknown {
  if (typeof value === 'string') {
    const name = ENV_REFERENCE.exec(value)?.[1];
    if (name === undefined) return value;
    const resolved = requireEnv(env, name, `a value of function_kwargs (${value})`);
    secrets.add(resolved);
    return resolved;
  }
  if (Array.isArray(value)) return value.map((item) => resolveEnvReferences(item, env, secrets));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolveEnvReferences(item, env, secrets)]));
  }
  return value;
}

/**
 * `native_pipeline`: calls `source_module.source_function(**function_kwargs)` of a dlt source in the managed
 * Python env; the module is one of the project's pipelines folder, never Python's own or an installed package. dlt loads into a scratch DuckDB file of the job; its tables come back as Parquet files and are
 * loaded here, replacing the previous ones, in the sync's one transaction (nested lists arrive as dlt's child
 * tables, `<table>__<field>`).
 */
const nativePipelineConnector: Connector = {
  async extract(context, sink) {
    const config = sectionOf(context.source) as ResolvedNativePipelineSection;
    const secrets = new Set<string>();
    // Checked again here, not only when saved: the file may have moved or been replaced by a symlink since.
    const moduleProblem = pipelineModuleProblem(config.source_module, context.projectDir);
    if (moduleProblem !== undefined) throw new SyncFailedError(moduleProblem);
    const kwargs = resolveEnvReferences(config.function_kwargs, context.env, secrets);
    let python: string;
    try {
      python = pythonExecutable('dlt');
    } catch (error) {
      if (error instanceof PythonEnvironmentError) throw new SyncFailedError(error.message);
      throw error;
    }
    const request = {
      module: config.source_module,
      function: config.source_function,
      kwargs,
      pipeline_name: config.pipeline_name,
      dataset_name: config.dataset_name,
      work_dir: context.workDir,
      pipelines_dir: path.join(context.projectDir, PIPELINES_FOLDER),
    };
    const manifest = await runPython(python, request, context, secrets);
    for (const table of manifest) {
      sink.table({ name: table.name, disposition: 'replace' }).addFile({ path: table.file, format: 'parquet' });
      context.log('INFO', `The pipeline produced ${String(table.rows)} row(s) of ${table.name}`);
    }
  },
};

function mask(text: string, secrets: ReadonlySet<string>): string {
  let masked = text;
  for (const secret of secrets) if (secret.length >= 4) masked = masked.replaceAll(secret, '***');
  return masked;
}

/**
 * What the pipeline's process may see: the source's environment (the basics, dlt's own settings and the variables
 * its arguments name: see sourceEnvironment) and the switches it runs with.
 */
function pipelineEnvironment(context: ExtractContext): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const [name, value] of Object.entries(context.env)) if (value !== undefined) environment[name] = value;
  return {
    ...environment, RUNTIME__DLTHUB_TELEMETRY: 'false', PYTHONDONTWRITEBYTECODE: '1', PYTHONUNBUFFERED: '1',
    // dlt reads its own config from here; the job's folder, not the user's home.
    DLT_DATA_DIR: path.join(context.workDir, 'dlt-data'),
  };
}

async function runPython(
  python: string, request: object, context: ExtractContext, secrets: ReadonlySet<string>,
): Promise<NonNullable<Manifest['tables']>> {
  // A group of its own, so a stop ends dlt's worker processes too, not only this one.
  const child = spawn(python, [RUNNER], {
    cwd: context.projectDir, env: pipelineEnvironment(context), stdio: ['pipe', 'pipe', 'pipe'], detached: true,
  });
  const stop = (): void => { signalProcessGroup(child, 'SIGKILL'); };
  context.signal.addEventListener('abort', stop, { once: true });
  let lastStdoutLine = '';
  createInterface({ input: child.stdout }).on('line', (line) => {
    // Only the manifest, the last line, matters: a chatty module must not fill memory.
    if (line.trim() !== '') lastStdoutLine = line.slice(0, MANIFEST_MAX_CHARS);
  });
  const stderr: string[] = [];
  createInterface({ input: child.stderr }).on('line', (line) => {
    if (line.trim() === '') return;
    stderr.push(line.slice(0, 2000));
    if (stderr.length > STDERR_LINES_KEPT) stderr.shift();
  });
  child.stdin.end(JSON.stringify(request));
  let exitCode: number | null;
  try {
    exitCode = await new Promise<number | null>((resolve, reject) => {
      child.on('error', (error) => { reject(new SyncFailedError(`Could not start Python for the pipeline: ${error.message}`)); });
      child.on('close', resolve);
    });
  } finally {
    context.signal.removeEventListener('abort', stop);
  }
  context.signal.throwIfAborted();
  let manifest: Manifest = {};
  try {
    manifest = JSON.parse(lastStdoutLine) as Manifest;
  } catch {
    // no manifest: the script died before writing it
  }
  if (manifest.error !== undefined) throw new SyncFailedError(mask(manifest.error, secrets));
  if (exitCode !== 0 || manifest.tables === undefined) {
    throw new SyncFailedError(mask(`The pipeline failed: ${pythonError(stderr)}`, secrets));
  }
  return manifest.tables;
}

/** The exception line of a Python traceback (its last line), or the last thing the process said. */
function pythonError(stderr: readonly string[]): string {
  const exception = [...stderr].reverse().find((line) => /^[A-Za-z_][\w.]*(Error|Exception|Exit)\b/.test(line.trim()));
  return (exception ?? stderr.at(-1) ?? 'it exited without a word').trim().slice(0, 500);
}

export const nativePipelineType = defineSourceType({
  key: 'native_pipeline', category: 'Local & Custom', authType: 'None', wizard: true, incremental: false,
  section: 'own', schema: NativePipelineSection, runsCode: true,
  connector: nativePipelineConnector,
});
