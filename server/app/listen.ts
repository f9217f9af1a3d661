import { createServer as createPlainServer, type Server as NetServer } from 'node:net';
import type { Server } from 'node:http';
import { Server as TlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { ListenAddress } from '../config/runtime-config.ts';
import { StartError } from './start-error.ts';

export interface ListenOptions {
  /**
   * How the port is shared among one gateway's own data-plane threads (SO_REUSEPORT):
   * - absent: not at all, the socket is the port's only one;
   * - `lead`: the first thread; a plain bind first proves no other process holds the port (a
   *   socket without SO_REUSEPORT cannot bind beside any listener), then it binds with SO_REUSEPORT;
   * - `join`: a further worker thread of the same gateway, joining the port its lead bound.
   */
  readonly share?: 'lead' | 'join';
  /** The setting the address comes from, named in the refusal (`listen`, `admin_listen`). */
  readonly setting?: string;
}

/** Listens and returns the URL. A port another process holds is refused with a StartError. */
export async function listen(server: Server, address: ListenAddress, options: ListenOptions = {}): Promise<string> {
  const setting = options.setting ?? 'listen';
  if (options.share === 'lead' && address.port !== 0) await proveFree(address, setting);
  await bind(server, address, options.share !== undefined, setting);
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

/** Binds a plain socket without SO_REUSEPORT and lets it go: it fails if anything listens there. */
async function proveFree(address: ListenAddress, setting: string): Promise<void> {
  const probe = createPlainServer();
  await bind(probe, address, false, setting);
  await new Promise<void>((resolve) => probe.close(() => resolve()));
}

function bind(server: NetServer, address: ListenAddress, reusePort: boolean, setting: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const fail = (error: NodeJS.ErrnoException) => reject(refusal(error, address, setting));
    server.once('error', fail);
    server.listen({ port: address.port, host: address.host, reusePort, exclusive: true }, () => {
      server.off('error', fail);
      resolve();
    });
  });
}

function refusal(error: NodeJS.ErrnoException, address: ListenAddress, setting: string): Error {
  const where = `${address.host.includes(':') ? `[${address.host}]` : address.host}:${address.port}`;
  switch (error.code) {
    case 'EADDRINUSE':
      return new StartError(`${setting} ${where} is already in use by another process: stop it or choose another address`, error.code);
    case 'EACCES':
      return new StartError(`${setting} ${where}: not allowed to listen there (ports below 1024 need privileges)`, error.code);
    case 'EADDRNOTAVAIL':
      return new StartError(`${setting} ${where}: no interface of this machine has that address`, error.code);
    default:
      return error;
  }
}
