import { once } from 'node:events';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboundPolicy, OutboundRefusedError, type Resolver } from './index.ts';

/** Names under .test never resolve (RFC 2606): only the test's resolver knows them, so a client that looked one up itself would fail. */
const ANSWERS: Readonly<Record<string, readonly string[]>> = {
  'db.pinned.test': ['127.0.0.1'],
  'public.pinned.test': ['192.0.2.10'],
  'mixed.pinned.test': ['192.0.2.10', '127.0.0.1'],
  'metadata.pinned.test': ['169.254.169.254'],
};

/** Answers ANSWERS' names, counting each question; any other name does not resolve. */
function testResolver(): { resolve: Resolver; asked: string[] } {
  const asked: string[] = [];
  const resolve: Resolver = async (hostname) => {
    asked.push(hostname);
    const addresses = ANSWERS[hostname];
    if (addresses === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: 4 }));
  };
  return { resolve, asked };
}

describe('OutboundPolicy.resolveReachable', () => {
  it('returns the address the name resolved to and was checked at, for the driver to connect to in its place', async () => {
    const { resolve } = testResolver();
    expect(await new OutboundPolicy([], { resolve }).resolveReachable('public.pinned.test')).toBe('192.0.2.10');
    expect(await new OutboundPolicy(['127.0.0.1'], { resolve }).resolveReachable('DB.Pinned.Test.')).toBe('127.0.0.1');
  });

  it('refuses a name of which any address is refused, naming the name and the address', async () => {
    const { resolve } = testResolver();
    const policy = new OutboundPolicy([], { resolve });
    await expect(policy.resolveReachable('mixed.pinned.test')).rejects.toThrow(new OutboundRefusedError('mixed.pinned.test', '127.0.0.1', 'a loopback address (this machine)'));
    await expect(policy.resolveReachable('metadata.pinned.test')).rejects.toThrow('Quarry does not connect to metadata.pinned.test (169.254.169.254): it is a cloud metadata address');
  });

  it('checks an IP address as written, asking no resolver', async () => {
    const { resolve, asked } = testResolver();
    const policy = new OutboundPolicy(['10.1.0.0/16'], { resolve });
    expect(await policy.resolveReachable('[2001:db8::1]')).toBe('2001:db8::1');
    expect(await policy.resolveReachable('10.1.2.3')).toBe('10.1.2.3');
    await expect(policy.resolveReachable('[::1]')).rejects.toThrow('Quarry does not connect to ::1: it is a loopback address (this machine)');
    expect(asked).toEqual([]);
  });

  it('rejects a name without an address as the resolver does (ENOTFOUND), for the driver\'s message to explain', async () => {
    const policy = new OutboundPolicy([]);
    await expect(policy.resolveReachable('nowhere.invalid')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    await expect(policy.resolveReachable('')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });
});

describe('OutboundPolicy.lookup and connect, for drivers that resolve as they connect', () => {
  let server: Server;
  let port: number;
  const accepted: Socket[] = [];
  beforeAll(async () => {
    server = createServer((socket) => { accepted.push(socket); socket.end('hello'); });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.close();
    await once(server, 'close');
  });

  /** What a socket from the policy's factory ends with: the server's greeting, or the error it failed with. */
  async function outcome(policy: OutboundPolicy, host: string): Promise<string> {
    const socket = policy.connect({ host, port, tls: false }, () => undefined);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    return new Promise((resolve) => {
      socket.once('error', (error) => { resolve(`error: ${error.message}`); });
      socket.once('close', () => { resolve(Buffer.concat(chunks).toString()); });
    });
  }

  it('connects through the policy\'s resolver, never the system\'s, to an allowed address', async () => {
    const { resolve, asked } = testResolver();
    expect(await outcome(new OutboundPolicy(['127.0.0.1'], { resolve }), 'db.pinned.test')).toBe('hello');
    expect(asked).toEqual(['db.pinned.test']);
  });

  it('fails the connection to a refused address, as resolved or as written, before any byte is exchanged', async () => {
    const { resolve } = testResolver();
    const before = accepted.length;
    const policy = new OutboundPolicy([], { resolve });
    expect(await outcome(policy, 'db.pinned.test')).toBe('error: Quarry does not connect to db.pinned.test (127.0.0.1): it is a loopback address (this machine); an admin can allow the host under network.allow_private in project.yml');
    expect(await outcome(policy, '127.0.0.1')).toBe('error: Quarry does not connect to 127.0.0.1: it is a loopback address (this machine); an admin can allow the host under network.allow_private in project.yml');
    expect(accepted.length).toBe(before);
  });

  it('answers net.connect\'s single-address lookup with the first address checked', async () => {
    const { resolve } = testResolver();
    const policy = new OutboundPolicy([], { resolve });
    const answer = await new Promise<unknown[]>((settle) => {
      policy.lookup('public.pinned.test', { family: 0 }, (...result) => { settle(result); });
    });
    expect(answer).toEqual([null, '192.0.2.10', 4]);
  });
});
