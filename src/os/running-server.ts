import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { ProjectPaths } from '../config/index.ts';
import { isRunning, thisProcess } from './process-identity.ts';

/** The `quarry start` serving a project: its process, and the address it really listens on (a free port it fell back to, say). */
export interface RunningServer {
  readonly pid: number;
  /** The port it listens on; null in a record written before the port was. */
  readonly port: number | null;
  /** `http://127.0.0.1:8800`: where a command on this machine reaches it; '' when the record has no port. */
  readonly localUrl: string;
}

/** Records this process as the project's server, listening at `address`; returns what removes the record. */
export function recordRunningServer(paths: ProjectPaths, address: { host: string; port: number }): () => void {
  const self = thisProcess();
  const host = address.host === '0.0.0.0' || address.host === '::' || address.host === '' ? '127.0.0.1' : address.host.includes(':') ? `[${address.host}]` : address.host;
  // The pid alone on the first line, as a person or a script reading the file expects.
  writeFileSync(paths.serverPidFile, `${String(self.pid)}\n${self.started}\nhttp://${host}:${String(address.port)}\n`);
  return () => { rmSync(paths.serverPidFile, { force: true }); };
}

/** The server the record names, when that process still runs; undefined when none serves the project. */
export function runningServer(paths: ProjectPaths): RunningServer | undefined {
  if (!existsSync(paths.serverPidFile)) return undefined;
  const [pidLine = '', started = '', localUrl = ''] = readFileSync(paths.serverPidFile, 'utf8').split('\n');
  const pid = Number(pidLine.trim());
  if (!Number.isInteger(pid) || pid <= 0 || !isRunning({ pid, started: started.trim() })) return undefined;
  const url = URL.parse(localUrl.trim());
  return { pid, port: url === null ? null : Number(url.port), localUrl: url === null ? '' : url.origin };
}
