import type { Server } from 'node:http';
import { Server as TlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { ListenAddress } from '../config/runtime-config.ts';

export async function listen(server: Server, address: ListenAddress): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host, () => {
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
