import { once } from 'node:events';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { SocksClient } from 'socks';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OutboundPolicy, OutboundRefusedError, OutboundSocksProxy, type Resolver } from './index.ts';

/** Names under .test never resolve (RFC 2606): only this resolver knows them, and sends them to this machine. */
const resolve: Resolver = async (hostname) => {
  if (hostname.endsWith('.pinned.test')) return [{ address: '127.0.0.1', family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
};

describe('OutboundSocksProxy', () => {
  /** Sends back what it receives, counting the connections it accepts. */
  let echo: Server;
  let echoPort: number;
  let accepted = 0;
  let proxy: OutboundSocksProxy;
  beforeAll(async () => {
    echo = createServer((socket) => { accepted += 1; socket.pipe(socket); }).listen(0, '127.0.0.1');
    await once(echo, 'listening');
    echoPort = (echo.address() as AddressInfo).port;
  });
  afterAll(async () => {
    echo.close();
    await once(echo, 'close');
  });
  // Only the name echo.pinned.test is allowed: 127.0.0.1 itself, or as another name resolves to it, stays refused.
  beforeEach(async () => { proxy = await OutboundSocksProxy.open(new OutboundPolicy(['echo.pinned.test'], { resolve })); });
  afterEach(async () => { await proxy.close(); });

  const connect = async (host: string, port = echoPort, credentials: { userId?: string; password?: string } = { userId: proxy.username, password: proxy.password }): Promise<Socket> => {
    const { socket } = await SocksClient.createConnection({
      proxy: { host: proxy.host, port: proxy.port, type: 5, ...credentials }, command: 'connect', destination: { host, port }, timeout: 5_000,
    });
    return socket;
  };

  it('tunnels to a host the policy allows, resolved through the policy', async () => {
    const socket = await connect('echo.pinned.test');
    socket.write('ping');
    const [reply] = await once(socket, 'data') as [Buffer];
    expect(reply.toString()).toBe('ping');
    socket.destroy();
    expect(proxy.failures).toEqual([]);
  });

  it('refuses a loopback address, written or resolved, before any connection is made, and says why', async () => {
    const before = accepted;
    for (const host of ['127.0.0.1', '::1', 'other.pinned.test']) {
      await expect(connect(host)).rejects.toThrow('Socks5 proxy rejected connection - NotAllowed');
    }
    expect(accepted).toBe(before);
    expect(proxy.failures.map((failure) => [failure instanceof OutboundRefusedError, failure.message])).toEqual([
      [true, 'Quarry does not connect to 127.0.0.1: it is a loopback address (this machine); an admin can allow the host under network.allow_private in project.yml'],
      [true, 'Quarry does not connect to ::1: it is a loopback address (this machine); an admin can allow the host under network.allow_private in project.yml'],
      [true, 'Quarry does not connect to other.pinned.test (127.0.0.1): it is a loopback address (this machine); an admin can allow the host under network.allow_private in project.yml'],
    ]);
  });

  it('answers a refused port as connection refused, keeping the error', async () => {
    const closed = createServer().listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as AddressInfo).port;
    closed.close();
    await once(closed, 'close');
    await expect(connect('echo.pinned.test', port)).rejects.toThrow('Socks5 proxy rejected connection - ConnectionRefused');
    expect(proxy.failures.map((failure) => (failure as NodeJS.ErrnoException).code)).toEqual(['ECONNREFUSED']);
  });

  it('serves only the client holding its credentials', async () => {
    await expect(connect('echo.pinned.test', echoPort, { userId: proxy.username, password: 'guess' })).rejects.toThrow('Socks5 Authentication failed');
    await expect(connect('echo.pinned.test', echoPort, {})).rejects.toThrow('no accepted authentication type');
    expect(proxy.failures).toEqual([]);
  });

  it('ends the tunnels it carries when it closes', async () => {
    const socket = await connect('echo.pinned.test');
    const ended = once(socket, 'close');
    await proxy.close();
    await ended;
    await proxy.close(); // a second close is a no-op
  });
});
