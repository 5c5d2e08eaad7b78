import { BlockList, isIP } from 'node:net';

/**
 * Addresses no source or alert may reach unless project.yml allows them: this machine itself (Superset, the
 * docs server and Quarry's own API listen there), link-local networks and the clouds' metadata services, which
 * hand out the host's credentials. Private networks (10/8, 172.16/12, 192.168/16, fc00::/7) stay reachable: a
 * self-hosted team reads its own internal APIs and databases there, and the editor who configures them may.
 */
const RANGES: readonly { readonly name: string; readonly add: (list: BlockList) => void }[] = [
  { name: 'a cloud metadata address', add: (list) => { list.addAddress('169.254.169.254', 'ipv4'); list.addAddress('fd00:ec2::254', 'ipv6'); } },
  { name: 'a loopback address (this machine)', add: (list) => { list.addSubnet('127.0.0.0', 8, 'ipv4'); list.addAddress('::1', 'ipv6'); } },
  { name: 'a link-local address', add: (list) => { list.addSubnet('169.254.0.0', 16, 'ipv4'); list.addSubnet('fe80::', 10, 'ipv6'); } },
  { name: 'an unspecified address (this machine)', add: (list) => { list.addSubnet('0.0.0.0', 8, 'ipv4'); list.addAddress('::', 'ipv6'); } },
];

const LISTS = RANGES.map(({ name, add }) => {
  const list = new BlockList();
  add(list);
  return { name, list };
});

/** The name of the refused range `address` (an IP address) falls in, first the most specific; undefined for any other. */
export function refusedRangeOf(address: string): string | undefined {
  const family = familyOf(address);
  if (family === undefined) return undefined;
  return LISTS.find(({ list }) => list.check(address, family))?.name;
}

export function familyOf(address: string): 'ipv4' | 'ipv6' | undefined {
  const version = isIP(address);
  return version === 4 ? 'ipv4' : version === 6 ? 'ipv6' : undefined;
}
