import { BlockList, isIP } from 'node:net';

/**
 * Addresses an image fetch must never reach unless the operator allows private targets: this host,
 * the private networks around it and the cloud metadata services (169.254.169.254 and friends sit
 * in link-local, Alibaba's 100.100.100.200 in shared address space, AWS's fd00:ec2::254 in unique
 * local). Checked on every address a name resolves to, at connect time.
 */
const RANGES: readonly (readonly [string, number, 'ipv4' | 'ipv6', string])[] = [
  ['0.0.0.0', 8, 'ipv4', 'this network'],
  ['10.0.0.0', 8, 'ipv4', 'private'],
  ['100.64.0.0', 10, 'ipv4', 'shared address space'],
  ['127.0.0.0', 8, 'ipv4', 'loopback'],
  ['169.254.0.0', 16, 'ipv4', 'link-local (cloud metadata)'],
  ['172.16.0.0', 12, 'ipv4', 'private'],
  ['192.0.0.0', 24, 'ipv4', 'IETF protocol assignments'],
  ['192.168.0.0', 16, 'ipv4', 'private'],
  ['198.18.0.0', 15, 'ipv4', 'benchmarking'],
  ['224.0.0.0', 4, 'ipv4', 'multicast'],
  ['240.0.0.0', 4, 'ipv4', 'reserved'],
  ['::', 128, 'ipv6', 'unspecified'],
  ['::1', 128, 'ipv6', 'loopback'],
  ['fc00::', 7, 'ipv6', 'unique local (private)'],
  ['fe80::', 10, 'ipv6', 'link-local'],
  ['ff00::', 8, 'ipv6', 'multicast'],
];

const lists = RANGES.map(([network, prefix, type, reason]) => {
  const list = new BlockList();
  list.addSubnet(network, prefix, type);
  return { list, type, reason };
});

/** IPv6 forms that carry an IPv4 address (mapped ::ffff:a.b.c.d, NAT64 64:ff9b::a.b.c.d): the IPv4 one is what is reached. */
function embeddedIpv4(address: string): string | undefined {
  const match = /^(?:::ffff:|64:ff9b::)(?:0:)?(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (match !== null) return match[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (hex === null) return undefined;
  const high = Number.parseInt(hex[1] as string, 16);
  const low = Number.parseInt(hex[2] as string, 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

/** Why `address` (an IP literal) is not a public address, or undefined when it is one. */
export function forbiddenAddressReason(address: string): string | undefined {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const version = isIP(bare);
  if (version === 0) return 'not an IP address';
  const v4 = version === 6 ? embeddedIpv4(bare) : bare;
  const type = v4 !== undefined ? 'ipv4' : 'ipv6';
  const target = v4 ?? bare;
  for (const { list, type: listType, reason } of lists) {
    if (listType === type && list.check(target, type)) return reason;
  }
  return undefined;
}
