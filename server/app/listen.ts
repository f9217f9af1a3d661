import type { Server } from 'node:http';
import { Server as TlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { ListenAddress } from '../config/runtime-config.ts';

/**
 * Listens and returns the URL. `reusePort` lets several worker threads each bind the same port
 * (SO_REUSEPORT): the kernel spreads new connections across them.
 */
export async function listen(server: Server, address: ListenAddress, options: { reusePort?: boolean } = {}): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: address.port, host: address.host, reusePort: options.reusePort === true }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = address.host === '0.0.0.0' || address.host === '::' ? '127.0.0.1' : address.host;
  const scheme = server instanceof TlsServer ? 'https' : 'http';
  return `${scheme}://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}
