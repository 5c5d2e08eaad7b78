import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { BlobServiceClient } from '@azure/storage-blob';
import { freePort } from './free-port.ts';

/** A real Azure Blob Storage endpoint for a test: Microsoft's Azurite, from the project's npm packages, on a loopback port of its own. */
export interface AzureStore {
  /** Azurite's well-known development account, as a source's credentials_env variable holds it. */
  readonly connectionString: string;
  /** The same account with a key that is not its own. */
  readonly wrongConnectionString: string;
  /** Creates a container and puts `blobs` (name → content) in it. */
  put(container: string, blobs: Readonly<Record<string, string | Buffer>>): Promise<void>;
  remove(container: string, name: string): Promise<void>;
  stop(): Promise<void>;
}

const HOST = '127.0.0.1';
const READY_TIMEOUT_MS = 30_000;
const AZURITE = path.resolve(import.meta.dirname, '..', '..', 'node_modules', '.bin', 'azurite-blob');
// Azurite's published development account (docs of Azurite): not a secret.
const ACCOUNT = 'devstoreaccount1';
const ACCOUNT_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

export async function startAzureStore(): Promise<AzureStore> {
  const dir = await mkdtemp(path.join(tmpdir(), 'quarry-azurite-'));
  const port = await freePort();
  const child = spawn(AZURITE, ['--blobHost', HOST, '--blobPort', String(port), '--location', dir, '--silent', '--skipApiVersionCheck', '--loose'], {
    detached: true, stdio: 'ignore', env: { PATH: process.env.PATH ?? '', HOME: dir },
  });
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      const exited = once(child, 'exit');
      process.kill(-child.pid, 'SIGKILL');
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  };
  const endpoint = `http://${HOST}:${String(port)}/${ACCOUNT}`;
  const connectionString = `DefaultEndpointsProtocol=http;AccountName=${ACCOUNT};AccountKey=${ACCOUNT_KEY};BlobEndpoint=${endpoint};`;
  try {
    await waitForPort(port);
  } catch (error) {
    await stop();
    throw error;
  }
  const service = BlobServiceClient.fromConnectionString(connectionString);
  return {
    connectionString,
    wrongConnectionString: connectionString.replace(ACCOUNT_KEY, Buffer.from('not the account key of this account').toString('base64')),
    async put(container, blobs) {
      const client = service.getContainerClient(container);
      await client.createIfNotExists();
      for (const [name, content] of Object.entries(blobs)) await client.getBlockBlobClient(name).upload(content, Buffer.byteLength(content));
    },
    async remove(container, name) {
      await service.getContainerClient(container).deleteBlob(name);
    },
    stop,
  };
}

async function waitForPort(port: number): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, HOST, () => { socket.end(); resolve(true); });
      socket.once('error', () => { resolve(false); });
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`Azurite did not listen on ${HOST}:${String(port)} within ${String(READY_TIMEOUT_MS)} ms`);
    await delay(100);
  }
}
