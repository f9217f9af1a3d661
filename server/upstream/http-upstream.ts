import {
  Agent as HttpAgent,
  type AgentOptions as HttpAgentOptions,
  type ClientRequest,
  type ClientRequestArgs,
  type IncomingHttpHeaders,
  type IncomingMessage,
  request as httpRequest,
} from 'node:http';
import { Agent as HttpsAgent, type AgentOptions as HttpsAgentOptions, type RequestOptions, request as httpsRequest } from 'node:https';
import type { Duplex, Readable } from 'node:stream';
import { UpstreamTimeoutError } from './upstream-errors.ts';

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
  /** Header names and values in pairs, as Node's rawHeaders (no object per request), without host and content-length. */
  readonly headers: readonly string[];
  /** A whole body, or an upload streamed through (its length in `headers`, else chunked). */
  readonly body: Buffer | string | Readable;
  /** Time from sending to the answer's headers, and the longest silence inside its body. */
  readonly headersTimeout: number;
  readonly bodyTimeout: number;
}

/** How long an idle pooled connection is kept when the server gives no Keep-Alive hint (a shorter hint wins, less 1 s). */
const IDLE_KEEP_ALIVE_MS = 30_000;

/**
 * Keep-alive connection pools to the upstreams on node:http's client, one pair of Agents (http,
 * https) per connect timeout, which is armed only on new connections. It replaced undici on the
 * data plane: a workers:1 gateway on undici promoted 330-430 KB per scavenge, mostly undici's
 * per-request objects kept past a young generation; the floor, on this client, about 1 KB
 * (bench/RESULTS.md, sessions 7 and 8). Each request's handler is driven as undici drove it.
 */
export class HttpUpstream {
  private readonly http: TimedHttpAgent;
  private readonly https: TimedHttpsAgent;

  constructor(connectMs: number, tls: Pick<HttpsAgentOptions, 'ca'> = {}) {
    const options = { keepAlive: true, timeout: IDLE_KEEP_ALIVE_MS, maxFreeSockets: 1024, scheduling: 'lifo' as const };
    this.http = new TimedHttpAgent(options, connectMs);
    this.https = new TimedHttpsAgent({ ...options, ...tls }, connectMs);
  }

  dispatch(request: UpstreamRequest, handler: UpstreamHandler): void {
    new UpstreamExchange(this, request, handler);
  }

  /** @internal the request on its pool. */
  open(request: UpstreamRequest, headers: string[]): ClientRequest {
    const { target } = request;
    const options = { agent: target.https ? this.https : this.http, hostname: target.hostname, port: target.port, path: target.path, method: 'POST', headers };
    return target.https ? httpsRequest(options) : httpRequest(options);
  }

  async close(): Promise<void> {
    this.http.destroy();
    this.https.destroy();
  }
}

/** An Agent whose new connections fail with a connect timeout when they are not up within `connectMs`; a pooled one is reused without a timer. */
class TimedHttpAgent extends HttpAgent {
  private readonly connectMs: number;
  constructor(options: HttpAgentOptions, connectMs: number) {
    super(options);
    this.connectMs = connectMs;
  }

  override createConnection(options: ClientRequestArgs, callback?: (error: Error | null, socket: Duplex) => void): Duplex | null | undefined {
    const socket = super.createConnection(options, callback);
    if (socket != null) armConnectTimeout(socket, this.connectMs, 'connect');
    return socket;
  }
}

/** The same for TLS: the handshake is part of connecting. The Agent keeps TLS sessions for reuse on new connections. */
class TimedHttpsAgent extends HttpsAgent {
  private readonly connectMs: number;
  constructor(options: HttpsAgentOptions, connectMs: number) {
    super(options);
    this.connectMs = connectMs;
  }

  override createConnection(options: RequestOptions, callback?: (error: Error | null, socket: Duplex) => void): Duplex | null | undefined {
    const socket = super.createConnection(options, callback);
    if (socket != null) armConnectTimeout(socket, this.connectMs, 'secureConnect');
    return socket;
  }
}

function armConnectTimeout(socket: Duplex, connectMs: number, up: 'connect' | 'secureConnect'): void {
  const timer = setTimeout(() => socket.destroy(new UpstreamTimeoutError('connect')), connectMs);
  const clear = () => {
    clearTimeout(timer);
    socket.off('close', clear);
  };
  socket.once(up, clear);
  socket.once('close', clear);
}

/**
 * One request on node:http: the ClientRequest's and IncomingMessage's events turned into the
 * handler's calls, with the headers and idle timeouts, pause/resume, and abort. After the first
 * error (or abort) nothing more reaches the handler, and the connection is closed.
 */
class UpstreamExchange implements UpstreamController {
  private readonly handler: UpstreamHandler;
  private readonly req: ClientRequest;
  private res: IncomingMessage | null = null;
  private timer: NodeJS.Timeout | undefined;
  private readonly bodyTimeout: number;
  private done = false;
  paused = false;

  constructor(pools: HttpUpstream, request: UpstreamRequest, handler: UpstreamHandler) {
    this.handler = handler;
    this.bodyTimeout = request.bodyTimeout;
    const { body } = request;
    const whole = typeof body === 'string' || Buffer.isBuffer(body);
    const headers = ['host', request.target.host, ...request.headers];
    if (whole) headers.push('content-length', String(typeof body === 'string' ? Buffer.byteLength(body) : body.length));
    const req = pools.open(request, headers);
    this.req = req;
    req.on('error', (error) => this.fail(error));
    req.on('response', (res) => this.onResponse(res));
    handler.onRequestStart(this);
    if (this.done) return; // aborted at once: nothing is sent
    this.timer = setTimeout(() => this.fail(new UpstreamTimeoutError('headers')), request.headersTimeout);
    if (whole) req.end(body);
    else {
      body.on('error', (error) => this.fail(error));
      body.pipe(req);
    }
  }

  private onResponse(res: IncomingMessage): void {
    if (this.done) return void res.resume();
    this.res = res;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.fail(new UpstreamTimeoutError('idle')), this.bodyTimeout);
    res.on('error', (error) => this.fail(error));
    res.on('data', (chunk: Buffer) => {
      if (this.done) return;
      this.timer?.refresh();
      this.handler.onResponseData(this, chunk);
    });
    res.on('end', () => {
      if (this.done) return;
      this.done = true;
      clearTimeout(this.timer);
      this.handler.onResponseEnd(this);
    });
    if (this.paused) res.pause();
    this.handler.onResponseStart(this, res.statusCode ?? 0, res.headers);
  }

  pause(): void {
    this.paused = true;
    this.res?.pause();
  }

  resume(): void {
    this.paused = false;
    this.res?.resume();
  }

  abort(reason: Error): void {
    this.fail(reason);
  }

  private fail(error: Error): void {
    if (this.done) return;
    this.done = true;
    clearTimeout(this.timer);
    this.req.destroy();
    this.handler.onResponseError(this, error);
  }
}
