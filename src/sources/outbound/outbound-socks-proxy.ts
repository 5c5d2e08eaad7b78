import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { SocketAddress, createServer, isIPv6, type AddressInfo, type Server, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { Socks5Server } from '@pondwader/socks5-server';
import type { OutboundPolicy } from './outbound-policy.ts';
import { OutboundRefusedError } from './outbound-refused-error.ts';

type ConnectionHandler = Socks5Server['connectionHandler'];
type SocksStatus = Parameters<Parameters<ConnectionHandler>[1]>[0];

/**
 * A SOCKS5 proxy on 127.0.0.1 for a driver that takes a proxy but no socket factory (MongoDB's): every CONNECT it is
 * asked for is made by the policy's socket factory, so a host the driver learns from a server (a replica set's
 * members, by name or by IP address) is checked like the hosts the source names. CONNECT only, and only for the
 * client given its credentials (random for each proxy); open for one sync or connection test, closed after it.
 */
export class OutboundSocksProxy {
  readonly host = '127.0.0.1';
  readonly username = randomBytes(12).toString('hex');
  readonly password = randomBytes(24).toString('hex');
  readonly #policy: OutboundPolicy;
  readonly #failures: Error[] = [];
  /** The clients' sockets and the connections made for them, destroyed on close, so that no tunnel outlives the proxy. */
  readonly #sockets = new Set<Socket>();
  readonly #server: Server;
  #closed: Promise<void> | undefined;

  private constructor(policy: OutboundPolicy) {
    this.#policy = policy;
    const socks = new Socks5Server()
      .setAuthHandler((connection) => connection.username === this.username && connection.password === this.password)
      .setConnectionHandler((connection, sendStatus) => { this.#tunnel(connection, sendStatus); });
    // The library's own listener is left unused: this one keeps every socket, so close() can end them.
    this.#server = createServer((socket) => {
      this.#track(socket);
      socks._handleConnection(socket);
    });
  }

  /** A proxy listening on an ephemeral loopback port, connecting where `policy` allows. */
  static async open(policy: OutboundPolicy): Promise<OutboundSocksProxy> {
    const proxy = new OutboundSocksProxy(policy);
    proxy.#server.listen(0, proxy.host);
    await once(proxy.#server, 'listening');
    return proxy;
  }

  get port(): number {
    return (this.#server.address() as AddressInfo).port;
  }

  /**
   * The connections it could not make, in order: refusals (OutboundRefusedError) and the network's errors. A driver
   * reports only the SOCKS reply's code, so these say what happened.
   */
  get failures(): readonly Error[] {
    return this.#failures;
  }

  /** Stops listening and ends every connection through it. */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      const closed = once(this.#server, 'close');
      this.#server.close();
      for (const socket of this.#sockets) socket.destroy();
      await closed;
    })();
    return this.#closed;
  }

  #tunnel(connection: Parameters<ConnectionHandler>[0], sendStatus: Parameters<ConnectionHandler>[1]): void {
    const client: Duplex = connection.socket;
    client.on('error', () => undefined); // the library stops listening for errors once it hands the CONNECT over; a reset client only ends its tunnel
    let granted = false;
    const target = this.#policy.connect({ host: shortForm(connection.destAddress), port: connection.destPort, tls: false }, () => {
      granted = true;
      target.setNoDelay(true);
      sendStatus('REQUEST_GRANTED');
      client.pipe(target).pipe(client);
    });
    this.#track(target);
    target.on('error', (error) => {
      if (granted) return;
      this.#failures.push(error);
      sendStatus(statusOf(error));
    });
    target.once('close', () => client.destroy());
    client.once('close', () => target.destroy());
  }

  #track(socket: Socket): void {
    this.#sockets.add(socket);
    socket.once('close', () => this.#sockets.delete(socket));
  }
}

/** The library writes an IPv6 address in full (0000:…:0001); messages show Node's short form (::1). */
function shortForm(host: string): string {
  return isIPv6(host) ? new SocketAddress({ address: host, family: 'ipv6' }).address : host;
}

/** The SOCKS reply for a connection that could not be made (RFC 1928, section 6). */
function statusOf(error: NodeJS.ErrnoException): SocksStatus {
  if (error instanceof OutboundRefusedError) return 'CONNECTION_NOT_ALLOWED';
  switch (error.code) {
    case 'ECONNREFUSED': return 'CONNECTION_REFUSED';
    case 'ENETUNREACH': return 'NETWORK_UNREACHABLE';
    case 'EHOSTUNREACH': case 'ENOTFOUND': case 'EAI_AGAIN': case 'ETIMEDOUT': return 'HOST_UNREACHABLE';
    default: return 'GENERAL_FAILURE';
  }
}
