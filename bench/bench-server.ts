// A Quarry on loopback for benchmarks: a fresh project, the admin signed in, an API key made through the API.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { initProject } from '../src/cli/init.ts';
import type { AppContext } from '../src/context.ts';
import { createLogger } from '../src/logger.ts';
import { startPlatform } from '../src/server/index.ts';

export interface BenchServer {
  readonly ctx: AppContext;
  readonly base: string;
  readonly port: number;
  /** `svc_session=...` of the signed-in admin. */
  readonly cookie: string;
  /** An admin API key. */
  readonly key: string;
  /** WebSocket clients connected to /ws now. */
  readonly connectedClients: () => number;
  close(): Promise<void>;
}

/** `prepare` runs on the new project before the platform starts (to add sources and their files). */
export async function startBenchServer(prepare?: (dir: string) => Promise<void>): Promise<BenchServer> {
  const dir = await mkdtemp(path.join(tmpdir(), 'quarry-bench-'));
  const password = 'bench-password-1';
  const env = { QUARRY_ADMIN_PASSWORD: password };
  await initProject(dir, { name: 'bench', adminEmail: 'bench@example.com', nonInteractive: true }, env);
  await prepare?.(dir);
  const platform = await startPlatform({
    projectDir: dir, env, log: createLogger({ level: 'silent' }),
    host: '127.0.0.1', ports: { web: 0 }, watcher: false, transform: false, docsServer: false, dashboard: 'not_started',
  });
  const { ctx, app } = platform;
  const close = async (): Promise<void> => {
    await platform.close();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const base = `http://127.0.0.1:${String(platform.port)}`;
    const login = await fetch(`${base}/api/auth/login`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'bench@example.com', password }),
    });
    const cookie = (login.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
    const keyResponse = await fetch(`${base}/api/auth/api-keys`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-requested-with': 'XMLHttpRequest', cookie }, body: JSON.stringify({ name: 'bench' }),
    });
    const { key } = await keyResponse.json() as { key: string };
    return { ctx, base, port: platform.port, cookie, key, close, connectedClients: () => app.websocketHub.size };
  } catch (error) {
    await close();
    throw error;
  }
}
