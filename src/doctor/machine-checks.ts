import { spawnSync } from 'node:child_process';
import { statfs } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { describeError } from '../errors.ts';
import { pythonExecutable } from '../python/index.ts';
import { ok, problem, warning, type Finding } from './finding.ts';

const REPOSITORY_ROOT = path.resolve(import.meta.dirname, '..', '..');
const SETUP = path.join(REPOSITORY_ROOT, 'bin', 'setup');
const GB = 1024 ** 3;

/** The managed Python environments the platform runs: dbt (models), dlt (pipelines), Superset (dashboards). */
export const PYTHON_ENVIRONMENTS = ['dbt', 'dlt', 'superset'] as const;

/** Node, as package.json's engines asks. */
export function checkNode(): Finding {
  const major = Number(process.versions.node.split('.')[0]);
  if (major >= 24) return ok('Node', `Node ${process.versions.node}`);
  return problem('Node', `Node ${process.versions.node} is older than 24`, `run ${SETUP} (it installs Node 24 into .tools/)`);
}

/** One managed Python environment: there, and its interpreter starts. */
export function checkPythonEnvironment(name: string, environmentsDir?: string): Finding {
  const check = `Python environment ${name}`;
  let python: string;
  try {
    python = pythonExecutable(name, environmentsDir);
  } catch (error) {
    return problem(check, describeError(error).replace(/; run .*$/, ''), `run ${SETUP}`);
  }
  const started = spawnSync(python, ['-c', 'import sys; print("%d.%d.%d" % sys.version_info[:3])'], { encoding: 'utf8', timeout: 30_000 });
  if (started.status !== 0) return problem(check, `its Python does not start: ${(started.stderr || String(started.error ?? '')).trim().split('\n').at(-1) ?? ''}`, `run ${SETUP}`);
  return ok(check, `Python ${started.stdout.trim()}`);
}

/** Free disk where the project lives; the platform health page uses the same limits. */
export async function checkDisk(directory: string): Promise<Finding> {
  const disk = await statfs(directory);
  const free = disk.bavail * disk.bsize;
  const freeGb = `${(free / GB).toFixed(1)} GB free`;
  if (free < GB) return problem('Disk', `only ${freeGb} for the project`, 'free space on this disk (old files in data/, logs) or move the project');
  if (free < 5 * GB || free < disk.blocks * disk.bsize * 0.05) return warning('Disk', `${freeGb}: low`, 'free space before the warehouse grows');
  return ok('Disk', freeGb);
}

/** Whether a port can be listened on (asked when no Quarry serves the project: one that does holds it). */
export async function checkPort(label: string, host: string, port: number, setting: string): Promise<Finding> {
  const check = `Port ${String(port)} (${label})`;
  const free = await new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once('error', () => { resolve(false); });
    server.listen(port, host, () => { server.close(() => { resolve(true); }); });
  });
  if (free) return ok(check, `free on ${host}`);
  return problem(check, `taken by another program on ${host}`, `stop that program, or choose another port: ${setting}`);
}
