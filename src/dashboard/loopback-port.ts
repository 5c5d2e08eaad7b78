import { createServer } from 'node:net';

/** `port` when it can be bound on loopback, else (or for 0) a free one. */
export async function availablePort(port: number): Promise<number> {
  const tryBind = (candidate: number) => new Promise<number | undefined>((resolve) => {
    const server = createServer();
    server.once('error', () => { resolve(undefined); });
    server.listen(candidate, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => { resolve(typeof address === 'object' && address !== null ? address.port : undefined); });
    });
  });
  const bound = port === 0 ? undefined : await tryBind(port);
  if (bound !== undefined) return bound;
  const free = await tryBind(0);
  if (free === undefined) throw new Error('no free loopback port for the dashboard tool');
  return free;
}
