import type { Server } from 'node:http';
import type { Server as TlsServer } from 'node:tls';
import type { TlsMaterial } from '../config/runtime-config.ts';
import { secureContextOptions, unusableTlsReason } from '../config/tls-material.ts';

/**
 * Why `next` cannot replace `current` on a running server, or undefined when it can: its parts
 * must load together (a key matching its certificate), and HTTP/HTTPS or mTLS on/off are fixed at
 * start (they are server options, not the secure context). The reason never quotes the PEM text.
 */
export function tlsRenewalProblem(plane: string, current: TlsMaterial | undefined, next: TlsMaterial | undefined): string | undefined {
  if ((current === undefined) !== (next === undefined)) return `${plane}: turning TLS on or off needs a restart`;
  if (current === undefined || next === undefined) return undefined;
  if ((current.clientCa === undefined) !== (next.clientCa === undefined)) return `${plane}: adding or removing client_ca needs a restart`;
  const unusable = unusableTlsReason(next);
  return unusable === undefined ? undefined : `${plane}: ${unusable}`;
}

/** New connections get `tls`; connections already open keep the context they shook hands with. */
export function renewServerTls(server: Server, tls: TlsMaterial | undefined): void {
  if (tls !== undefined) (server as unknown as TlsServer).setSecureContext(secureContextOptions(tls));
}

/** Why each plane's certificates in `next` cannot replace those `served` now (empty when both can). */
export function tlsRenewalProblems(
  served: { readonly tls: TlsMaterial | undefined; readonly adminTls: TlsMaterial | undefined },
  next: { readonly tls: TlsMaterial | undefined; readonly adminTls: TlsMaterial | undefined },
): string[] {
  return [tlsRenewalProblem('tls', served.tls, next.tls), tlsRenewalProblem('admin_tls', served.adminTls, next.adminTls)].filter((p) => p !== undefined);
}
