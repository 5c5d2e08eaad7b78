import { hostname } from 'node:os';
import { thisProcess } from '../os/index.ts';
import type { JobOwner } from '../store/index.ts';

/** This process as the owner of the jobs it queues and runs, named `name` (a worker's --name) or host:pid. */
export function thisJobOwner(name?: string): JobOwner {
  const host = hostname();
  const process = thisProcess();
  return { ...process, host, worker: name ?? `${host}:${String(process.pid)}` };
}
