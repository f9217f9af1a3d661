import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as TlsServer } from 'node:https';
import type { Socket } from 'node:net';

/**
 * A busy connection's response, kept on its socket rather than as a value in a Map of the guard's:
 * a long-lived Map that gains and loses an entry per request rehashes every few dozen requests,
 * and V8 leaves the live entries in the table it leaves behind, which points to the next one. Once
 * one of those tables has aged into the old generation, scavenges keep every later table alive
 * through it, and with them each response (and its request's whole graph) they held: they are
 * promoted, and only a mark-compact frees them (bench/RESULTS.md, issue 19, promotion).
 */
const RESPONSE = Symbol('response');
type GuardedSocket = Socket & { [RESPONSE]?: ServerResponse | undefined };

export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

export interface ConnectionGuardOptions {
  /** Client connections held at most (Infinity: no cap). */
  readonly maxConnections: number;
  /** Answers a request that came on a connection accepted beyond the cap (503 with Retry-After). */
  readonly refuse?: RequestListener;
  /** Requests served normally even on a connection beyond the cap (GET /healthz). */
  readonly alwaysServed?: (req: IncomingMessage) => boolean;
  /**
   * The server's header timeout: Node stops checking it once the server closes, so during a
   * drain the guard closes a fresh connection that has not begun a request within it.
   */
  readonly headerTimeoutMs?: number;
}

export interface DrainResult {
  /** Connections still open at the deadline, closed then (their requests cut). */
  readonly cut: number;
}

/**
 * Watches one HTTP server's client connections: which have a request in flight and which wait
 * (kept alive after a response, or not yet past their headers).
 *
 * The cap: at `maxConnections`, a new connection displaces the one that has waited longest, as
 * a waiting connection costs its holder nothing. When every connection has a request in flight,
 * a new one is still read (within the header timeout) and answered by `refuse`, except the
 * requests `alwaysServed` lets through; past a small reserve of those, it is closed at once.
 *
 * The drain: stop accepting, close waiting kept-alive connections, answer every request from
 * then on with `connection: close`, close each busy connection as its response ends, and cut
 * whatever is still open at the deadline.
 */
export class ConnectionGuard {
  /** Waiting connections, the longest waiting first (a Set keeps insertion order). */
  private readonly waiting = new Set<Socket>();
  /** Connections with a request in flight (each one's response is on the socket: RESPONSE). */
  private readonly busy = new Set<Socket>();
  /** Connections accepted beyond the cap: one request each, then closed. */
  private readonly overflow = new Set<Socket>();
  /** Connections that have answered at least one request (kept alive, not fresh). */
  private readonly served = new WeakSet<Socket>();
  private readonly options: ConnectionGuardOptions;
  private readonly reserve: number;
  private draining = false;
  private onEmpty: (() => void) | undefined;
  /** Waiting connections closed to make room; connections refused, by 503 or closed at once. */
  readonly counters = { displaced: 0, refused: 0, closedAtOnce: 0 };

  constructor(options: ConnectionGuardOptions) {
    this.options = options;
    this.reserve = Number.isFinite(options.maxConnections) ? Math.max(16, Math.ceil(options.maxConnections / 16)) : 0;
  }

  /** Client connections open now (the overflow included). */
  get open(): number {
    return this.waiting.size + this.busy.size + this.overflow.size;
  }

  /** The server's request listener, wrapped to follow each connection's state. */
  listener(listener: RequestListener): RequestListener {
    return (req, res) => this.onRequest(req, res, listener);
  }

  /** Follows the server's new connections (for HTTPS, once their handshake is done). */
  watch(server: Server): void {
    server.on(server instanceof TlsServer ? 'secureConnection' : 'connection', (socket: Socket) => this.onConnection(socket));
  }

  /** Stops accepting and waits, up to `deadlineMs`, for the requests in flight; then cuts the rest. */
  drain(server: Server, deadlineMs: number): Promise<DrainResult> {
    this.draining = true;
    server.close();
    for (const socket of this.waiting) {
      if (this.served.has(socket)) socket.destroy();
      else if (this.options.headerTimeoutMs !== undefined) setTimeout(() => this.waiting.has(socket) && socket.destroy(), this.options.headerTimeoutMs).unref();
    }
    for (const socket of this.busy) {
      const res = (socket as GuardedSocket)[RESPONSE];
      if (res !== undefined && !res.headersSent) res.shouldKeepAlive = false;
    }
    if (this.open === 0) return Promise.resolve({ cut: 0 });
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        const cut = this.open;
        this.onEmpty = undefined;
        for (const socket of [...this.waiting, ...this.busy, ...this.overflow]) socket.destroy();
        server.closeAllConnections();
        resolve({ cut });
      }, deadlineMs);
      this.onEmpty = () => {
        clearTimeout(timer);
        resolve({ cut: 0 });
      };
    });
  }

  private onConnection(socket: Socket): void {
    if (this.open >= this.options.maxConnections) {
      const longestWaiting = this.waiting.values().next();
      if (!longestWaiting.done) {
        this.counters.displaced++;
        longestWaiting.value.destroy(); // its 'close' takes it out of the set
        this.waiting.delete(longestWaiting.value);
      } else if (this.overflow.size < this.reserve) {
        this.overflow.add(socket);
        socket.once('close', () => this.forget(socket));
        return;
      } else {
        this.counters.closedAtOnce++;
        socket.destroy();
        return;
      }
    }
    this.waiting.add(socket);
    socket.once('close', () => this.forget(socket));
  }

  private onRequest(req: IncomingMessage, res: ServerResponse, listener: RequestListener): void {
    const socket = req.socket;
    if (this.overflow.has(socket)) {
      res.shouldKeepAlive = false;
      if (this.options.alwaysServed?.(req) === true || this.options.refuse === undefined) {
        listener(req, res);
        return;
      }
      this.counters.refused++;
      this.options.refuse(req, res);
      return;
    }
    this.waiting.delete(socket);
    this.busy.add(socket);
    (socket as GuardedSocket)[RESPONSE] = res;
    if (this.draining) res.shouldKeepAlive = false;
    res.once('close', () => {
      if ((socket as GuardedSocket)[RESPONSE] !== res) return; // a pipelined request took over
      (socket as GuardedSocket)[RESPONSE] = undefined;
      this.busy.delete(socket);
      if (socket.destroyed) return this.settle();
      this.served.add(socket);
      this.waiting.add(socket);
      // Draining: a response that went out as keep-alive (before the drain began) ends its connection.
      if (this.draining) socket.end(() => socket.destroy());
    });
    listener(req, res);
  }

  private forget(socket: Socket): void {
    (socket as GuardedSocket)[RESPONSE] = undefined;
    this.waiting.delete(socket);
    this.busy.delete(socket);
    this.overflow.delete(socket);
    this.settle();
  }

  private settle(): void {
    if (this.draining && this.open === 0) this.onEmpty?.();
  }
}
