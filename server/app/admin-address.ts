import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isLoopbackAddress } from '../config/loopback.ts';

export interface AdminAddress {
  /** The address literal the admin plane binds: the one that was checked, not a name looked up again. */
  readonly address: string;
  /** Every address the configured host stands for is loopback. */
  readonly loopback: boolean;
}

/**
 * Resolves `admin_listen`'s host at start. Loopback is judged on what the name resolves to,
 * every address of it, so `127.0.0.1.nip.io` or a name an attacker controls does not pass for
 * loopback by its spelling; the plane then listens on the address that was judged.
 */
export async function resolveAdminAddress(
  host: string,
  lookupAll: (host: string) => Promise<readonly { address: string }[]> = (name) => lookup(name, { all: true }),
): Promise<AdminAddress> {
  if (isIP(host) !== 0) return { address: host, loopback: isLoopbackAddress(host) };
  const addresses = await lookupAll(host);
  const first = addresses[0];
  if (first === undefined) throw new Error(`admin_listen: ${host} resolves to no address`);
  return { address: first.address, loopback: addresses.every((a) => isLoopbackAddress(a.address)) };
}
