import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { SecureContextOptions } from 'node:tls';
import { OriginPool } from './origin-pool.ts';

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

/**
 * The data plane's HTTP/1.1 client for upstreams: keep-alive connections per origin, one request at
 * a time on each, answers read by Node's own parser (upstream-connection.ts). It replaced undici's
 * `dispatch`: alone, this client costs about undici's CPU per request (21 against 22 µs) but
 * allocates 4.9 KB against 7.1 and leaves nothing in the old generation, where undici's fast
 * timers (kept up to half a second after they are cleared) promoted 170 KB per scavenge; a
 * workers:1 gateway spent 1-18% less CPU per request on it, two workers 13-27%
 * (bench/upstream-clients.ts; bench/RESULTS.md, session 8). One client per connect timeout.
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
