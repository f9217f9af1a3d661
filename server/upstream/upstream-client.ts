import type { IncomingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';
import type { Readable } from 'node:stream';
import type { SecureContextOptions } from 'node:tls';
import { UpstreamConnection } from './upstream-connection.ts';

/** What a handler may do to its request: hold the answer back, let it flow again, or stop it. */
export interface UpstreamController {
  readonly paused: boolean;
  pause(): void;
  resume(): void;
  /** Stops the request wherever it is: the handler is told `reason` (once), the connection is closed. */
  abort(reason: Error): void;
}

/** Told what happens to one upstream request, in this order; nothing after an error. */
export interface UpstreamHandler {
  onRequestStart(controller: UpstreamController): void;
  /** The final answer's status and headers (1xx answers are skipped). */
  onResponseStart(controller: UpstreamController, status: number, headers: IncomingHttpHeaders): void;
  onResponseData(controller: UpstreamController, chunk: Buffer): void;
  onResponseEnd(controller: UpstreamController): void;
  onResponseError(controller: UpstreamController, error: Error): void;
}

/** Where a request goes, resolved once per provider and path (send-upstream.ts). */
export interface UpstreamTarget {
  readonly https: boolean;
  readonly hostname: string;
  readonly port: number;
  /** The Host header: the origin's host, with the port when it is not the scheme's default. */
  readonly host: string;
  readonly path: string;
}

export interface UpstreamRequest {
  readonly target: UpstreamTarget;
  /** Header names and values in pairs, checked (upstream-headers.ts), without host and content-length for a whole body. */
  readonly headers: readonly string[];
  /** A whole body, or an upload streamed through (its length in `headers`, else chunked). */
  readonly body: Buffer | string | Readable;
  /** Time from sending to the answer's headers, and the longest silence inside its body. */
  readonly headersTimeout: number;
  readonly bodyTimeout: number;
}

/** TLS settings for the upstream connections beyond the defaults (a test's own CA). */
export type UpstreamTls = Pick<SecureContextOptions, 'ca'>;

/** How long an idle pooled connection is kept when the server gives no shorter Keep-Alive hint. */
const IDLE_KEEP_ALIVE_MS = 30_000;
/** How often idle connections past their time are closed. */
const SWEEP_MS = 1_000;

/**
 * The data plane's HTTP/1.1 client for upstreams: keep-alive connections per origin, one request at
 * a time on each, answers read by Node's own parser (upstream-connection.ts). It replaced undici's
 * `dispatch`, whose per-request objects (a Request, fast timers kept up to half a second after
 * they are cleared) cost the client 22 µs and 7 KB per request where this costs about 17 µs and
 * 3 KB (bench/upstream-clients.ts; bench/RESULTS.md, session 8). One client per connect timeout.
 */
export class UpstreamClient {
  private readonly byTarget = new WeakMap<UpstreamTarget, OriginPool>();
  private readonly byOrigin = new Map<string, OriginPool>();

  private readonly connectMs: number;
  private readonly tls: UpstreamTls;

  constructor(connectMs: number, tls: UpstreamTls = {}) {
    this.connectMs = connectMs;
    this.tls = tls;
  }

  dispatch(request: UpstreamRequest, handler: UpstreamHandler): void {
    const { target } = request;
    let pool = this.byTarget.get(target);
    if (pool === undefined) {
      const origin = `${target.https ? 'https' : 'http'}://${target.hostname}:${target.port}`;
      pool = this.byOrigin.get(origin);
      if (pool === undefined) this.byOrigin.set(origin, (pool = new OriginPool(target, this.connectMs, this.tls)));
      this.byTarget.set(target, pool);
    }
    pool.dispatch(request, handler);
  }

  async close(): Promise<void> {
    for (const pool of this.byOrigin.values()) pool.close();
    this.byOrigin.clear();
  }
}

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

/**
 * One request's side of a connection: the handler's controller and its timeouts (time to the
 * headers, silence inside the body). After the first error, abort or end nothing more reaches
 * the handler.
 */
export class UpstreamExchange implements UpstreamController {
  readonly request: UpstreamRequest;
  private readonly handler: UpstreamHandler;
  connection: UpstreamConnection | null = null;
  private timer: NodeJS.Timeout | undefined;
  done = false;
  paused = false;

  constructor(request: UpstreamRequest, handler: UpstreamHandler) {
    this.request = request;
    this.handler = handler;
  }

  /** Sent: the time to the headers runs. */
  sent(onTimeout: () => void): void {
    this.timer = setTimeout(onTimeout, this.request.headersTimeout);
  }

  started(status: number, headers: IncomingHttpHeaders, onIdle: () => void): void {
    if (this.done) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(onIdle, this.request.bodyTimeout);
    this.handler.onResponseStart(this, status, headers);
  }

  data(chunk: Buffer): void {
    if (this.done) return;
    this.timer?.refresh();
    this.handler.onResponseData(this, chunk);
  }

  ended(): void {
    if (this.done) return;
    this.done = true;
    clearTimeout(this.timer);
    this.handler.onResponseEnd(this);
  }

  failed(error: Error): void {
    if (this.done) return;
    this.done = true;
    clearTimeout(this.timer);
    this.handler.onResponseError(this, error);
  }

  pause(): void {
    this.paused = true;
    this.connection?.pause();
  }

  resume(): void {
    this.paused = false;
    this.connection?.resume();
  }

  abort(reason: Error): void {
    if (this.done) return;
    this.failed(reason);
    this.connection?.destroy();
  }
}
