import { promises as dns, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { BlockList, Socket, connect as netConnect, isIP, type LookupFunction } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { Agent, buildConnector } from 'undici';
import { OutboundRefusedError } from './outbound-refused-error.ts';
import { familyOf, refusedRangeOf } from './refused-ranges.ts';

/**
 * Which hosts the connections of sources and alerts may reach: anything but this machine, link-local networks and
 * the metadata addresses, unless project.yml's `network.allow_private` names the host (a name as written in the
 * source, an IP address, or a CIDR range). A connection goes to an address that was checked: a name is checked as
 * it resolves for the connection (a `lookup`, the dispatcher), or resolved once here and the driver handed the
 * address in its place, so a name that resolves elsewhere on a second lookup (DNS rebinding) gains nothing.
 */
export class OutboundPolicy {
  readonly #allowedNames: ReadonlySet<string>;
  readonly #allowedAddresses = new BlockList();
  readonly #resolve: Resolver;
  #agent: Agent | undefined;

  /** `resolve` answers for every name the policy looks up: the system's resolver, unless a test gives its own. */
  constructor(allowPrivate: readonly string[], options: { readonly resolve?: Resolver } = {}) {
    this.#resolve = options.resolve ?? ((hostname, lookupOptions) => dns.lookup(hostname, lookupOptions));
    const names = new Set<string>();
    for (const entry of allowPrivate) {
      const [address = '', prefix] = entry.split('/');
      const family = familyOf(bareHost(address));
      if (family === undefined) names.add(bareHost(entry));
      else if (prefix === undefined) this.#allowedAddresses.addAddress(bareHost(address), family);
      else this.#allowedAddresses.addSubnet(bareHost(address), Number(prefix), family);
    }
    this.#allowedNames = names;
  }

  /** The refusal of a connection to `address`, which `host` resolved to, or undefined when it may go ahead. */
  refusalOf(host: string, address: string): OutboundRefusedError | undefined {
    const name = bareHost(host);
    if (this.#allowedNames.has(name)) return undefined;
    const range = refusedRangeOf(address);
    const family = familyOf(address);
    if (range === undefined || family === undefined || this.#allowedAddresses.check(address, family)) return undefined;
    return new OutboundRefusedError(name, address, range);
  }

  /**
   * The address a driver is handed in place of `host`, so that it connects where the policy looked and never
   * resolves the name again: the first address `host` resolves to, once every one may be reached (an IP address
   * is checked as written). Throws OutboundRefusedError, or for a name without an address the resolver's error
   * (code ENOTFOUND), which the caller reports in its own words.
   */
  async resolveReachable(host: string): Promise<string> {
    const name = bareHost(host);
    if (name === '') throw hostNotFound(host);
    const version = isIP(name);
    const addresses = version === 0 ? await this.#resolve(name, { all: true }) : [{ address: name, family: version }];
    return this.#firstReachable(name, addresses).address;
  }

  /** A `lookup` for net.connect and tls.connect: resolves as usual, and fails the connection if any address is refused. */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    this.#resolve(hostname, { ...options, all: true })
      .then((addresses) => ({ addresses, first: this.#firstReachable(hostname, addresses) }))
      .then(({ addresses, first }) => {
        if (options.all === true) callback(null, [...addresses]);
        else callback(null, first.address, first.family);
      }, (error: unknown) => { callback(error as Error, ''); });
  };

  /**
   * A TCP (or TLS, verified against the host's name) connection to host:port, for drivers that take a socket
   * factory: a name is checked as it resolves, an IP address as written; a refused one fails the socket with
   * OutboundRefusedError.
   */
  connect(target: { readonly host: string; readonly port: number; readonly tls: boolean }, onConnect: () => void): Socket {
    const refusal = this.#refusalOfAddress(target.host);
    if (refusal !== undefined) {
      const socket = new Socket();
      process.nextTick(() => socket.destroy(refusal)); // the driver listens for errors once the factory has returned
      return socket;
    }
    const options = { host: target.host, port: target.port, lookup: this.lookup };
    if (!target.tls) return netConnect(options, onConnect);
    return tlsConnect({ ...options, ...tlsServerName(target.host) }, onConnect);
  }

  /**
   * The dispatcher every fetch of a source or an alert goes through: each connection (a redirect's too) is
   * checked, IP addresses as written and names as they resolve.
   */
  get dispatcher(): FetchDispatcher {
    this.#agent ??= new Agent({ connect: this.#connector() });
    // The npm package's Agent, of the same major version as the undici Node's fetch is built on, which takes it;
    // @types/node types that fetch's dispatcher with its own copy of undici's classes.
    // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment -- the same class, from two copies of its types
    return this.#agent;
  }

  /** Closes the dispatcher's idle connections; the policy stays usable. */
  async close(): Promise<void> {
    const agent = this.#agent;
    this.#agent = undefined;
    await agent?.close();
  }

  #connector(): buildConnector.connector {
    const connect = buildConnector({ lookup: this.lookup });
    return (options, callback) => {
      const refusal = this.#refusalOfAddress(options.hostname);
      if (refusal === undefined) connect(options, callback);
      else callback(refusal, null);
    };
  }

  /** The refusal of `host` when it is an IP address as written, which net.connect reaches without calling `lookup`. */
  #refusalOfAddress(host: string): OutboundRefusedError | undefined {
    const address = bareHost(host);
    return familyOf(address) === undefined ? undefined : this.refusalOf(address, address);
  }

  /** The first of the addresses `host` resolved to; throws the refusal of any that may not be reached. */
  #firstReachable(host: string, addresses: readonly LookupAddress[]): LookupAddress {
    for (const { address } of addresses) {
      const refusal = this.refusalOf(host, address);
      if (refusal !== undefined) throw refusal;
    }
    const [first] = addresses;
    if (first === undefined) throw hostNotFound(host);
    return first;
  }
}

/** What the resolver reports for a name without an address, which drivers' messages already explain. */
function hostNotFound(host: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND', hostname: host });
}

type FetchDispatcher = NonNullable<RequestInit['dispatcher']>;

/** Every address a name resolves to, as dns.promises.lookup answers with `all`. */
export type Resolver = (hostname: string, options: LookupAllOptions) => Promise<readonly LookupAddress[]>;

/** A host as compared: lower case, without an IPv6 literal's brackets or a fully qualified name's last dot. */
function bareHost(host: string): string {
  return host.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
}

/** The TLS server name for `host` (sent as SNI, and what the certificate is verified against): none for an IP address, which SNI may not carry. */
export function tlsServerName(host: string): { servername?: string } {
  const name = bareHost(host);
  return familyOf(name) === undefined ? { servername: name } : {};
}

/** The host of a server address written `host:port`, `[v6]:port` or `scheme://host:port` (a broker, a database). */
export function hostOfServer(server: string): string {
  const url = server.includes('://') ? server : `tcp://${server}`;
  return URL.canParse(url) ? new URL(url).hostname : server;
}
