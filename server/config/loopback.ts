import { isIP } from 'node:net';

/**
 * A host only this machine can reach, judged without a lookup: the name `localhost`, or an
 * address literal in 127.0.0.0/8 or ::1 (a name such as 127.0.0.1.nip.io is not one: it is
 * what it resolves to that counts, see admin-address.ts).
 */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || isLoopbackAddress(host);
}

/** An IP address literal (not a name) in 127.0.0.0/8, ::1, or IPv4-mapped 127.0.0.0/8. */
export function isLoopbackAddress(address: string): boolean {
  const version = isIP(address);
  if (version === 4) return address.startsWith('127.');
  if (version !== 6) return false;
  let normal: string;
  try {
    normal = new URL(`http://[${address}]/`).hostname.slice(1, -1); // compressed, lower case, IPv4 part in hex
  } catch {
    return false; // a zone id (fe80::1%eth0): link-local, not loopback
  }
  return normal === '::1' || /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(normal);
}

/** A name whose addresses are known only once it is resolved (not an address literal, not localhost). */
export function needsLookup(host: string): boolean {
  return host !== 'localhost' && isIP(host) === 0;
}
