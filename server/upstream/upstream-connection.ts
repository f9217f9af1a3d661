import type { IncomingHttpHeaders } from 'node:http';
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import type { OriginPool } from './origin-pool.ts';
import type { UpstreamExchange } from './upstream-exchange.ts';
import { UpstreamTimeoutError } from './upstream-errors.ts';

/** Node's HTTP parser (llhttp, native), as node:http's own client drives it. */
interface NativeParser {
  initialize(type: number, resource: object, maxHeaderSize: number, lenient: number): void;
  execute(chunk: Buffer): number | Error;
  finish(): number | Error | undefined;
  [callback: number]: unknown;
}
type ParserClass = (new () => NativeParser) & {
  readonly RESPONSE: number;
  readonly kOnHeaders: number;
  readonly kOnHeadersComplete: number;
  readonly kOnBody: number;
  readonly kOnMessageComplete: number;
};
// The module node:http takes its parser from: not a documented API, so it is tested on the project's
// pinned Node (test/upstream); getBuiltinModule, not an import, works in the single executable's bundle too.
const { HTTPParser } = process.getBuiltinModule('_http_common' as 'http') as unknown as { HTTPParser: ParserClass };

/** The parser's own resource for async hooks: nothing of ours. */
const PARSER_RESOURCE = Object.freeze({});
const CRLF = '\r\n';

/** An error a connection gives its request when the server closed it first. */
function closedError(message: string): Error {
  return Object.assign(new Error(message), { code: 'ECONNRESET' });
}

/**
 * One keep-alive HTTP/1.1 connection to an upstream, one request at a time: the request written
 * as one head and its body, the answer read by llhttp straight from the socket's chunks. After an
 * answer that ends cleanly (and leaves the connection open) it goes back to its pool.
 */
export class UpstreamConnection {
  private readonly pool: OriginPool;
  private readonly socket: Socket;
  private readonly parser: NativeParser;
  private exchange: UpstreamExchange | null = null;
  /** Header pairs llhttp handed over before the head was complete (a head split across reads). */
  private partial: string[] = [];
  /** The current message is a 1xx answer: skipped. */
  private informational = false;
  private keepAlive = false;
  /**
   * Bytes still due of an answer framed by its Content-Length, counted once its headers are read;
   * -1 for any other framing. llhttp hands a body over as copies (a new buffer per piece), which
   * for a large whole answer (an embeddings batch, 330 KB) doubled the gateway's CPU per request
   * and its garbage (bench/RESULTS.md, session 8); so once the head is parsed, the rest of such a
   * body is taken from the socket's own chunks, uncopied, and the parser starts afresh after it.
   */
  private lengthLeft = -1;
  private hintMs: number | undefined;
  /** An upload is still being written: the connection cannot be reused before it ends. */
  private uploading = false;
  private connectTimer: NodeJS.Timeout | undefined;
  private closed = false;
  /** Until when an idle connection may be reused (set by the pool). */
  idleUntil = 0;

  constructor(pool: OriginPool) {
    this.pool = pool;
    const secure = pool.https;
    const socket: Socket = secure
      ? tlsConnect({ host: pool.hostname, port: pool.port, servername: pool.servername, session: pool.session, ALPNProtocols: ['http/1.1'], ...pool.tls })
      : netConnect({ host: pool.hostname, port: pool.port });
    this.socket = socket;
    socket.setNoDelay(true);
    // A pooled connection whose peer vanished is found by the kernel, not by the next request.
    socket.setKeepAlive(true, 60_000);
    this.connectTimer = setTimeout(() => this.fail(new UpstreamTimeoutError('connect')), pool.connectMs);
    socket.once(secure ? 'secureConnect' : 'connect', () => clearTimeout(this.connectTimer));
    if (secure) (socket as TLSSocket).on('session', (session: Buffer) => (pool.session = session));
    socket.on('data', (chunk: Buffer) => this.read(chunk));
    socket.on('end', () => this.ended());
    socket.on('error', (error) => this.fail(error));
    socket.on('close', () => this.close());

    const parser = new HTTPParser();
    parser.initialize(HTTPParser.RESPONSE, PARSER_RESOURCE, 0, 0);
    parser[HTTPParser.kOnHeaders] = (headers: string[]) => {
      for (const item of headers) this.partial.push(item);
    };
    parser[HTTPParser.kOnHeadersComplete] = (
      _major: number,
      _minor: number,
      headers: string[] | undefined,
      _method: unknown,
      _url: unknown,
      status: number,
      _text: unknown,
      _upgrade: boolean,
      keepAlive: boolean,
    ) => {
      let raw = headers;
      if (raw === undefined) {
        raw = this.partial;
        this.partial = [];
      }
      this.headersComplete(status, raw, keepAlive);
      return 0;
    };
    parser[HTTPParser.kOnBody] = (chunk: Buffer) => {
      if (this.lengthLeft > 0) this.lengthLeft -= chunk.length;
      this.exchange?.data(chunk);
    };
    parser[HTTPParser.kOnMessageComplete] = () => this.messageComplete();
    this.parser = parser;
  }

  run(exchange: UpstreamExchange): void {
    this.exchange = exchange;
    exchange.connection = this;
    const { request } = exchange;
    const { body } = request;
    let head = `POST ${request.target.path} HTTP/1.1\r\nhost: ${request.target.host}\r\nconnection: keep-alive\r\n`;
    const pairs = request.headers;
    for (let i = 0; i < pairs.length; i += 2) head += `${pairs[i]}: ${pairs[i + 1]}\r\n`;
    const socket = this.socket;
    if (typeof body === 'string' || Buffer.isBuffer(body)) {
      const length = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
      socket.cork();
      socket.write(`${head}content-length: ${length}\r\n\r\n`, 'latin1');
      if (length > 0) socket.write(body);
      socket.uncork();
    } else this.upload(head, body, !hasHeader(pairs, 'content-length'));
    exchange.sent(() => this.timedOut('headers'));
    if (exchange.paused) this.pause();
    else this.resume();
  }

  /** A streamed request body, written as it comes (chunked when its length is not known), with backpressure. */
  private upload(head: string, body: NodeJS.ReadableStream & { destroyed?: boolean }, chunked: boolean): void {
    const socket = this.socket;
    this.uploading = true;
    socket.write(`${head}${chunked ? 'transfer-encoding: chunked\r\n' : ''}\r\n`, 'latin1');
    const drained = () => body.resume();
    body.on('data', (chunk: Buffer) => {
      if (this.closed || chunk.length === 0) return;
      let ok: boolean;
      if (chunked) {
        socket.cork();
        socket.write(`${chunk.length.toString(16)}${CRLF}`, 'latin1');
        socket.write(chunk);
        ok = socket.write(CRLF, 'latin1');
        socket.uncork();
      } else ok = socket.write(chunk);
      if (!ok) {
        body.pause();
        socket.once('drain', drained);
      }
    });
    body.on('end', () => {
      if (this.closed) return;
      if (chunked) socket.write(`0${CRLF}${CRLF}`, 'latin1');
      this.uploading = false;
    });
    body.on('error', (error: Error) => this.fail(error));
  }

  pause(): void {
    this.socket.pause();
  }

  resume(): void {
    this.socket.resume();
  }

  private read(chunk: Buffer): void {
    if (this.exchange === null) {
      this.destroy(); // nothing is due on an idle connection
      return;
    }
    if (this.lengthLeft > 0) {
      this.readLengthBody(chunk);
      return;
    }
    const result = this.parser.execute(chunk);
    if (result instanceof Error) this.fail(result);
  }

  /** The rest of a Content-Length body, straight from the socket's chunks (see `lengthLeft`). */
  private readLengthBody(chunk: Buffer): void {
    const left = this.lengthLeft;
    const exchange = this.exchange as UpstreamExchange;
    if (chunk.length < left) {
      this.lengthLeft = left - chunk.length;
      exchange.data(chunk);
      return;
    }
    this.lengthLeft = -1;
    exchange.data(chunk.length === left ? chunk : chunk.subarray(0, left));
    if (this.closed) return; // the reader stopped the answer on its last piece
    // The parser stopped inside this body: it starts afresh for the next answer on the connection.
    this.parser.initialize(HTTPParser.RESPONSE, PARSER_RESOURCE, 0, 0);
    // Bytes past the answer's end were not asked for: the connection cannot be trusted again.
    if (chunk.length > left) this.keepAlive = false;
    this.messageComplete();
  }

  private headersComplete(status: number, raw: string[], keepAlive: boolean): void {
    // An answer nobody asked for (bytes after the last answer, on an idle connection): the connection cannot be trusted.
    if (this.exchange === null) {
      this.destroy();
      return;
    }
    if (status < 200) {
      this.informational = true; // 100 Continue, 103 Early Hints: the real answer follows
      return;
    }
    this.keepAlive = keepAlive;
    const headers: IncomingHttpHeaders = {};
    let hint: string | undefined;
    for (let i = 0; i < raw.length; i += 2) {
      const name = (raw[i] as string).toLowerCase();
      const value = raw[i + 1] as string;
      if (name === '__proto__') continue;
      if (name === 'keep-alive') hint = value;
      const before = headers[name];
      // `constructor`, `toString`...: a name the object inherits is not a value seen before.
      if (before === undefined || !Object.hasOwn(headers, name)) headers[name] = value;
      else if (Array.isArray(before)) before.push(value);
      else headers[name] = [before, value];
    }
    this.hintMs = keepAliveHint(hint);
    const length = headers['content-length'];
    // 204 and 304 carry no body whatever their Content-Length says; llhttp has refused a length beside chunked framing.
    this.lengthLeft = typeof length === 'string' && status !== 204 && status !== 304 ? Number(length) : -1;
    this.exchange?.started(status, headers, () => this.timedOut('idle'));
  }

  private messageComplete(): void {
    if (this.informational) {
      this.informational = false;
      return;
    }
    this.lengthLeft = -1;
    const exchange = this.exchange;
    if (exchange === null) return; // the end of an unasked-for answer: the connection is already closed
    this.exchange = null;
    exchange.connection = null;
    this.partial = []; // a chunked answer's trailers, not kept
    if (this.keepAlive && !this.uploading && !this.closed && this.hintMs !== 0) {
      this.socket.resume();
      this.pool.release(this, this.hintMs);
    } else this.destroy();
    exchange.ended();
  }

  /**
   * A timer ran out. Two silences are not the upstream's, as undici has it too: the body's while
   * the reader holds the answer back (a slow client behind a long stream), and the wait for the
   * headers while an upload is still being written and the upstream takes it (a slow client's
   * upload): then the timer starts over.
   */
  private timedOut(phase: 'headers' | 'idle'): void {
    const exchange = this.exchange;
    if (exchange !== null && (phase === 'idle' ? exchange.paused : this.uploading && !this.socket.writableNeedDrain)) {
      exchange.restartTimer();
      return;
    }
    this.fail(new UpstreamTimeoutError(phase));
  }

  /** The server ended its side: an answer read to the end of the connection ends here; anything else is cut short. */
  private ended(): void {
    // An answer without a length ends with the connection (the parser then completes it); any other is cut short.
    if (this.exchange !== null) this.parser.finish();
    this.fail(closedError('the upstream closed the connection'));
  }

  /** The connection fails: its request (if any) is told, and the connection is closed. */
  private fail(error: Error): void {
    const exchange = this.exchange;
    this.exchange = null;
    this.destroy();
    exchange?.failed(error);
  }

  private close(): void {
    const exchange = this.exchange;
    this.exchange = null;
    this.closed = true;
    clearTimeout(this.connectTimer);
    this.pool.forget(this);
    exchange?.failed(closedError('the upstream connection closed'));
  }

  destroy(): void {
    if (!this.closed) {
      this.closed = true;
      clearTimeout(this.connectTimer);
      this.pool.forget(this);
      this.socket.destroy();
    }
  }
}

/** The server's Keep-Alive `timeout=N`, less a second (so the gateway lets go first); 0 when too short to reuse. */
function keepAliveHint(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const seconds = /timeout=(\d+)/i.exec(value)?.[1];
  if (seconds === undefined) return undefined;
  return Math.max(0, Number(seconds) * 1000 - 1000);
}

function hasHeader(pairs: readonly string[], name: string): boolean {
  for (let i = 0; i < pairs.length; i += 2) if ((pairs[i] as string).toLowerCase() === name) return true;
  return false;
}
