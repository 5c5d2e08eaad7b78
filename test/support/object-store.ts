import { spawn } from 'node:child_process';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import { pythonExecutable } from '../../src/python/index.ts';
import { freePort } from './free-port.ts';

/** A real S3-compatible server for a test (SeaweedFS from the test-tools environment), on loopback ports of its own. */
export interface ObjectStore {
  /** `host:port` of the S3 API, as DuckDB's ENDPOINT takes it (plain HTTP, path-style buckets). */
  readonly endpoint: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly region: string;
  /** Creates a bucket, as its owner does before pointing Quarry at it. */
  createBucket(name: string): Promise<void>;
  /** Ends the server and removes its data; a second call does nothing. */
  stop(): Promise<void>;
}

const HOST = '127.0.0.1';
const READY_TIMEOUT_MS = 60_000;
const OUTPUT_LINES_KEPT = 20;
const VOLUME_SLOTS = 200;
const START_ATTEMPTS = 3;

/**
 * Every port `weed server` listens on. A gRPC port left unset is derived as its HTTP port + 10000, which can be a
 * port another test's server chose, so each is picked here too.
 */
const PORT_FLAGS = [
  's3.port', 's3.port.grpc', 'master.port', 'master.port.grpc', 'volume.port', 'volume.port.grpc', 'filer.port', 'filer.port.grpc',
] as const;
type PortFlag = (typeof PORT_FLAGS)[number];

/** The services that put their gRPC socket at a fixed place, /tmp/seaweedfs-<service>-grpc-<port>.sock, whatever TMPDIR says. */
const GRPC_SOCKET_SERVICES = ['s3', 'master', 'volume', 'filer'] as const;

/** Starts SeaweedFS's server with its S3 gateway and one identity of random credentials; resolves once S3 answers. */
export async function startObjectStore(): Promise<ObjectStore> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce();
    } catch (error) {
      // A port probed free can be taken by another test's process before weed binds it: pick them all again.
      if (!(error instanceof PortTakenError) || attempt === START_ATTEMPTS) throw error;
    }
  }
}

class PortTakenError extends Error {}

async function startOnce(): Promise<ObjectStore> {
  const weed = path.join(path.dirname(pythonExecutable('test-tools')), 'weed');
  const dir = await mkdtemp(path.join(tmpdir(), 'quarry-object-store-'));
  const dataDir = path.join(dir, 'data');
  await mkdir(dataDir);
  const accessKeyId = randomBytes(10).toString('hex').toUpperCase();
  const secretAccessKey = randomBytes(20).toString('hex');
  const identityFile = path.join(dir, 's3.json');
  await writeFile(identityFile, JSON.stringify({
    identities: [{ name: 'quarry-test', credentials: [{ accessKey: accessKeyId, secretKey: secretAccessKey }], actions: ['Admin', 'Read', 'Write', 'List', 'Tagging'] }],
  }), { mode: 0o600 });
  const ports = await distinctFreePorts();
  const child = spawn(weed, [
    '-logtostderr', // glog otherwise also writes log files into the temp folder of the machine
    'server', `-dir=${dataDir}`, `-ip=${HOST}`, `-ip.bind=${HOST}`, '-s3', `-s3.config=${identityFile}`,
    ...PORT_FLAGS.map((flag) => `-${flag}=${String(ports[flag])}`),
    // Fixed default ports two servers would both take; 0 turns these gateways off.
    '-s3.port.iceberg=0', '-s3.port.lance=0',
    `-filer.localSocket=${path.join(dir, 'filer.sock')}`, `-s3.localSocket=${path.join(dir, 's3.sock')}`,
    // Each bucket is a collection of its own, which grows several volumes at its first write: the default of 8
    // volume slots holds two buckets.
    `-volume.max=${String(VOLUME_SLOTS)}`,
    '-master.telemetry=false',
  ], {
    cwd: dir, // weed looks for security.toml and friends in the working directory and $HOME
    env: { PATH: process.env.PATH ?? '', HOME: dir, TMPDIR: dir },
    detached: true, // its own process group, so stop() reaches everything it starts
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = lastLines(child.stdout, child.stderr);
  let ended: string | undefined;
  child.once('error', (error) => { ended = error.message; });
  child.once('exit', (code, signal) => { ended = `exit code ${String(code)}, signal ${String(signal)}`; });
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    if (ended === undefined && child.pid !== undefined) {
      const exited = once(child, 'exit');
      try {
        // SIGKILL, not SIGTERM: the data is thrown away, and on SIGTERM the volume server waits 10 s before it stops.
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // The group is gone already; its exit event is on its way.
      }
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
    await Promise.all(GRPC_SOCKET_SERVICES.map((service) =>
      rm(`/tmp/seaweedfs-${service}-grpc-${String(ports[`${service}.port.grpc`])}.sock`, { force: true })));
  };
  const endpoint = `${HOST}:${String(ports['s3.port'])}`;
  try {
    await waitUntilWritable(endpoint, `${HOST}:${String(ports['master.port'])}`, () => ended, output);
  } catch (error) {
    await stop();
    throw error;
  }
  const region = 'us-east-1';
  const createBucket = async (name: string): Promise<void> => {
    const client = new S3Client({
      region, endpoint: `http://${endpoint}`, forcePathStyle: true, credentials: { accessKeyId, secretAccessKey },
    });
    try {
      await client.send(new CreateBucketCommand({ Bucket: name }));
    } finally {
      client.destroy();
    }
  };
  return { endpoint, accessKeyId, secretAccessKey, region, createBucket, stop };
}

/** One free port per flag, no two alike (each probe lets its port go, so the kernel may hand it out again). */
async function distinctFreePorts(): Promise<Record<PortFlag, number>> {
  const taken = new Set<number>();
  while (taken.size < PORT_FLAGS.length) taken.add(await freePort());
  const ports = [...taken];
  return Object.fromEntries(PORT_FLAGS.map((flag, index) => [flag, ports[index]])) as Record<PortFlag, number>;
}

/**
 * Polls until the S3 gateway answers an unauthenticated GET / with 403 and the master has a volume server to write
 * to. S3 can answer first: when the volume server's first heartbeat reaches the master before it leads, the next
 * one comes 5 s later, and a write meanwhile waits that long. Fails early when the server exits.
 */
async function waitUntilWritable(endpoint: string, master: string, ended: () => string | undefined, output: () => string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const end = ended();
    if (end !== undefined) {
      const lastOutput = output();
      const message = `weed server ended before S3 answered (${end}); its last output:\n${lastOutput}`;
      throw lastOutput.includes('address already in use') ? new PortTakenError(message) : new Error(message);
    }
    if (await answersForbidden(endpoint) && await hasFreeVolumeSlots(master)) return;
    if (Date.now() > deadline) {
      throw new Error(`weed server's S3 gateway was not ready on ${endpoint} within ${String(READY_TIMEOUT_MS)} ms; its last output:\n${output()}`);
    }
    await delay(100);
  }
}

async function answersForbidden(endpoint: string): Promise<boolean> {
  try {
    const response = await fetch(`http://${endpoint}/`, { signal: AbortSignal.timeout(2_000) });
    await response.body?.cancel();
    return response.status === 403;
  } catch {
    return false; // not listening yet
  }
}

async function hasFreeVolumeSlots(master: string): Promise<boolean> {
  try {
    const response = await fetch(`http://${master}/dir/status`, { signal: AbortSignal.timeout(2_000) });
    const status = await response.json() as { Topology?: { Free?: number } };
    return (status.Topology?.Free ?? 0) > 0;
  } catch {
    return false;
  }
}

/** Keeps the last lines the server wrote on either stream, for an error that says why it did not start. */
function lastLines(...streams: Readable[]): () => string {
  const lines: string[] = [];
  for (const input of streams) {
    createInterface({ input }).on('line', (line) => {
      lines.push(line);
      if (lines.length > OUTPUT_LINES_KEPT) lines.shift();
    });
  }
  return () => lines.join('\n');
}
