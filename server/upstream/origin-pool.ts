import { isIP } from 'node:net';
import type { UpstreamHandler, UpstreamRequest, UpstreamTarget, UpstreamTls } from './upstream-client.ts';
import { UpstreamConnection } from './upstream-connection.ts';
import { UpstreamExchange } from './upstream-exchange.ts';

/** How long an idle pooled connection is kept when the server gives no shorter Keep-Alive hint. */
const IDLE_KEEP_ALIVE_MS = 30_000;
/** How often idle connections past their time are closed. */
const SWEEP_MS = 1_000;

/** The connections to one origin: idle ones reused last-in first-out, busy ones counted by their sockets. */
export class OriginPool {
  readonly hostname: string;
  readonly port: number;
  readonly https: boolean;
  /** For TLS: the name the certificate is checked against (none for an IP address). */
  readonly servername: string | undefined;
  /** The last TLS session, offered by new connections (a resumed handshake). */
  session: Buffer | undefined;
  private readonly idle: UpstreamConnection[] = [];
  private readonly open = new Set<UpstreamConnection>();
  private sweeper: NodeJS.Timeout | undefined;

  readonly connectMs: number;
  readonly tls: UpstreamTls;

  constructor(target: UpstreamTarget, connectMs: number, tls: UpstreamTls) {
    this.connectMs = connectMs;
    this.tls = tls;
    this.hostname = target.hostname;
    this.port = target.port;
    this.https = target.https;
    this.servername = target.https && isIP(target.hostname) === 0 ? target.hostname : undefined;
  }

  dispatch(request: UpstreamRequest, handler: UpstreamHandler): void {
    const exchange = new UpstreamExchange(request, handler);
    handler.onRequestStart(exchange);
    if (exchange.done) return; // aborted before it was sent: nothing is sent
    let connection = this.idle.pop();
    const now = Date.now();
    while (connection !== undefined && connection.idleUntil < now) {
      connection.destroy();
      connection = this.idle.pop();
    }
    if (connection === undefined) {
      connection = new UpstreamConnection(this);
      this.open.add(connection);
    }
    connection.run(exchange);
  }

  /** A connection whose answer ended and may carry another request (for `keepMs`, the server's hint or ours). */
  release(connection: UpstreamConnection, hintMs: number | undefined): void {
    connection.idleUntil = Date.now() + Math.min(hintMs ?? IDLE_KEEP_ALIVE_MS, IDLE_KEEP_ALIVE_MS);
    this.idle.push(connection);
    this.sweeper ??= setInterval(() => this.sweep(), SWEEP_MS).unref();
  }

  /** A connection that closed (or was closed): it is no longer offered. */
  forget(connection: UpstreamConnection): void {
    this.open.delete(connection);
    const at = this.idle.indexOf(connection);
    if (at !== -1) this.idle.splice(at, 1);
  }

  private sweep(): void {
    const now = Date.now();
    for (const connection of [...this.idle]) if (connection.idleUntil < now) connection.destroy();
    if (this.idle.length === 0 && this.sweeper !== undefined) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }

  close(): void {
    for (const connection of [...this.open]) connection.destroy();
    if (this.sweeper !== undefined) clearInterval(this.sweeper);
    this.sweeper = undefined;
  }
}
