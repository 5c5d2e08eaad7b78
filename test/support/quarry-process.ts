import { spawn, type ChildProcessByStdio } from 'node:child_process';
import path from 'node:path';
import type { Readable } from 'node:stream';

export const QUARRY_BIN = path.resolve(import.meta.dirname, '..', '..', 'bin', 'quarry');

export interface QuarryProcess {
  readonly child: ChildProcessByStdio<null, Readable, Readable>;
  readonly url: string;
  /** Everything the process printed on stdout so far. */
  readonly output: () => string;
}

/**
 * Runs `bin/quarry start` on `port` (a free one by default), without Superset unless asked, with `args` besides,
 * and resolves once it prints its URL.
 */
export async function spawnQuarry(projectDir: string, options: { port?: number; dashboard?: boolean; args?: readonly string[] } = {}): Promise<QuarryProcess> {
  const port = String(options.port ?? 0);
  const args = ['start', '--project', projectDir, '--port', port, ...options.dashboard === true ? [] : ['--no-dashboard'], ...options.args ?? []];
  const child = spawn(QUARRY_BIN, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      output += chunk;
      const match = /Quarry is running at (http:\/\/\S+)/.exec(output);
      if (match?.[1]) resolve(match[1]);
    });
    child.on('exit', (code) => { reject(new Error(`exited ${String(code)}: ${output}`)); });
  });
  return { child, url, output: () => output };
}

/** What a command of the CLI printed and how it ended. */
export interface CommandOutcome {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `bin/quarry args…` as a user does, with `env` over this process's, without blocking this event loop (a platform may run in it). */
export function runQuarry(args: readonly string[], env: Readonly<Record<string, string>> = {}, options: { timeoutMs?: number } = {}): Promise<CommandOutcome> {
  const child = spawn(QUARRY_BIN, args, {
    stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env }, ...options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs, killSignal: 'SIGKILL' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
  return new Promise((resolve) => child.on('close', (status) => { resolve({ status, stdout, stderr }); }));
}

/** An API key of the user's, made as the web UI makes one: log in, then ask for a key. */
export async function createApiKey(url: string, login: { email: string; password: string }): Promise<string> {
  const loggedIn = await fetch(`${url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(login) });
  const cookie = (loggedIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const created = await fetch(`${url}/api/auth/api-keys`, {
    method: 'POST', headers: { cookie, 'content-type': 'application/json', 'x-requested-with': 'XMLHttpRequest' }, body: JSON.stringify({ name: 'cli' }),
  });
  if (!created.ok) throw new Error(`no API key: ${String(created.status)} ${await created.text()}`);
  return (await created.json() as { key: string }).key;
}
