import { lookup as lookupHost, promises as dns, type LookupAddress } from 'node:dns';
import { BlockList, type LookupFunction } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { OutboundRefusedError } from './outbound-refused-error.ts';
import { familyOf, refusedRangeOf } from './refused-ranges.ts';

/**
 * Which hosts the connections of sources and alerts may reach: anything but this machine, link-local networks and
 * the metadata addresses, unless project.yml's `network.allow_private` names the host (a name as written in the
 * source, an IP address, or a CIDR range). Addresses are checked when the connection is made, on what the name
 * resolved to then, so a name that resolves elsewhere on a second lookup (DNS rebinding) gains nothing.
 */
export class OutboundPolicy {
  readonly #allowedNames: ReadonlySet<string>;
  readonly #allowedAddresses = new BlockList();
  #agent: Agent | undefined;

  constructor(allowPrivate: readonly string[]) {
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
   * Throws OutboundRefusedError unless every address `host` resolves to may be reached, for clients that resolve
   * and connect by themselves (database drivers, brokers); a name that does not resolve is left for the client to report.
   */
  async assertReachable(host: string): Promise<void> {
    const name = bareHost(host);
    let addresses: readonly Pick<LookupAddress, 'address'>[];
    if (familyOf(name) !== undefined) addresses = [{ address: name }];
    else {
      try {
        addresses = await dns.lookup(name, { all: true });
      } catch {
        return;
      }
    }
    for (const { address } of addresses) {
      const refusal = this.refusalOf(name, address);
      if (refusal !== undefined) throw refusal;
    }
  }

  /** A `lookup` for net.connect and tls.connect: resolves as usual, and fails the connection if any address is refused. */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    lookupHost(hostname, { ...options, all: true }, (error, addresses) => {
      if (error !== null) {
        callback(error, '');
        return;
      }
      const refusal = addresses.map(({ address }) => this.refusalOf(hostname, address)).find((found) => found !== undefined);
      const first = addresses[0];
      if (refusal !== undefined) callback(refusal, '');
      else if (options.all === true) callback(null, addresses);
      else if (first === undefined) callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '');
      else callback(null, first.address, first.family);
    });
  };

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
      // net.connect skips `lookup` for an IP address, so an address written in the URL is checked here.
      const refusal = familyOf(options.hostname) === undefined ? undefined : this.refusalOf(options.hostname, options.hostname);
      if (refusal === undefined) connect(options, callback);
      else callback(refusal, null);
    };
  }
}

type FetchDispatcher = NonNullable<RequestInit['dispatcher']>;

/** A host as compared: lower case, without an IPv6 literal's brackets or a fully qualified name's last dot. */
function bareHost(host: string): string {
  return host.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
}

/** The host of a server address written `host:port`, `[v6]:port` or `scheme://host:port` (a broker, a database). */
export function hostOfServer(server: string): string {
  const url = server.includes('://') ? server : `tcp://${server}`;
  return URL.canParse(url) ? new URL(url).hostname : server;
}
