import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { CollectableBody } from '../http-body/bounded-body.ts';
import { overrunAt, type MemoryHold, type Overrun } from '../http-body/byte-budget.ts';
import { GatewayFailure } from '../ir/index.ts';
import type { AbortWatch } from './abort-watch.ts';
import type { UpstreamController, UpstreamHandler } from './upstream-client.ts';
import { describeNetworkError, UpstreamAbortedError } from './upstream-errors.ts';

/** Bytes an unread streamed answer may queue before the upstream connection is paused (as undici did). */
const HIGH_WATER = 64 * 1024;
const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });
const NO_HEADERS: IncomingHttpHeaders = Object.freeze({});
const RESOLVED: Promise<void> = Promise.resolve();

/**
 * One upstream request and its answer, in one object: the request's handler (upstream-client.ts), the
 * answer (status, headers, body), the body's reader (`read`/`readable`, and an async iterator over
 * them), and the attempt's abort listener.
 * It replaced undici's `dispatcher.request`, whose answer body is a Node Readable with its own async
 * iterator, abort listeners and async resource for each request (with the garbage they leave,
 * 12-22% of a workers:1 gateway's CPU per request: bench/RESULTS.md, session 6). What it keeps:
 * - a streamed answer is read chunk by chunk, with backpressure: past HIGH_WATER unread bytes the
 *   connection is paused until the reader catches up;
 * - a whole answer (`collect`) is gathered as it arrives, within a limit, with no per-chunk promise;
 * - the attempt's signal aborts the request at any point; a failure before the headers rejects
 *   `response` (a GatewayFailure, as describeNetworkError says it), one after them rejects the
 *   body's reader with the client's own error (describeBodyError tells them apart).
 */
export class UpstreamReply implements UpstreamHandler, AsyncIterator<Buffer>, AsyncIterable<Buffer>, CollectableBody {
  /** Resolves (to this object) when the response headers arrive. */
  readonly response: Promise<UpstreamReply>;
  status = 0;
  headers: IncomingHttpHeaders = NO_HEADERS;
  /** Why a whole-body read stopped before the end (past its limit, or no room in its hold). */
  overrun: Overrun | undefined;

  private controller: UpstreamController | null = null;
  private started = false;
  private resolveResponse!: (reply: UpstreamReply) => void;
  private rejectResponse!: (error: unknown) => void;
  /** Chunks not yet read, and their size. */
  private queue: Buffer[] = [];
  private queued = 0;
  private ended = false;
  private failure: Error | undefined;
  /** A reader waiting for `read()` to have something (`readable()`). */
  private wake: (() => void) | undefined;
  /** A whole-body read in progress. */
  private collecting: Collecting | undefined;

  private readonly signal: AbortSignal;
  /** The attempt's abort, watched instead of a listener on `signal` when the caller has one (abort-watch.ts). */
  private readonly watch: AbortWatch | undefined;
  private readonly providerName: string;
  /** A streamed request body, destroyed when the request fails. */
  private readonly upload: Readable | undefined;

  constructor(signal: AbortSignal, providerName: string, upload: Readable | undefined, watch?: AbortWatch) {
    this.signal = signal;
    this.providerName = providerName;
    this.upload = upload;
    this.watch = watch;
    this.response = new Promise<UpstreamReply>((resolve, reject) => {
      this.resolveResponse = resolve;
      this.rejectResponse = reject;
    });
    if (watch !== undefined) watch.watchAbort(this);
    else if (!signal.aborted) signal.addEventListener('abort', this);
  }

  /** What UpstreamResponse calls the body: this object is its own body. */
  get body(): this {
    return this;
  }

  // --- the abort listener

  /** The attempt's signal aborted: the request goes, wherever it is. */
  handleEvent(): void {
    this.controller?.abort(this.abortReason());
  }

  private abortReason(): Error {
    return (this.signal.reason as Error | undefined) ?? new UpstreamAbortedError();
  }

  private stopListening(): void {
    if (this.watch !== undefined) this.watch.unwatchAbort(this);
    else this.signal.removeEventListener('abort', this);
  }

  // --- the request's handler

  onRequestStart(controller: UpstreamController): void {
    this.controller = controller;
    // Aborted before it was sent: the request is never sent.
    if (this.signal.aborted) controller.abort(this.abortReason());
  }

  onResponseStart(_controller: UpstreamController, statusCode: number, headers: IncomingHttpHeaders): void {
    if (statusCode < 200) return; // an informational answer (100 Continue): the real one follows
    this.status = statusCode;
    this.headers = headers;
    this.started = true;
    this.resolveResponse(this);
  }

  onResponseData(controller: UpstreamController, chunk: Buffer): void {
    if (this.failure !== undefined) return;
    const collecting = this.collecting;
    if (collecting !== undefined) {
      this.gather(collecting, chunk);
      return;
    }
    this.queue.push(chunk);
    this.queued += chunk.length;
    this.wakeReader();
    if (this.queued >= HIGH_WATER) controller.pause();
  }

  onResponseEnd(): void {
    this.ended = true;
    this.stopListening();
    const collecting = this.collecting;
    if (collecting !== undefined) {
      this.collecting = undefined;
      collecting.resolve(this.taken(collecting, collecting.size));
      return;
    }
    this.wakeReader();
  }

  onResponseError(_controller: UpstreamController, error: Error): void {
    this.stopListening();
    if (this.upload !== undefined && !this.upload.destroyed) {
      this.upload.on('error', ignore);
      this.upload.destroy(error);
    }
    if (!this.started) {
      this.started = true;
      this.rejectResponse(new GatewayFailure(describeNetworkError(error, this.providerName)));
      return;
    }
    if (this.ended || this.failure !== undefined) return;
    this.fail(error);
  }

  // --- the body

  [Symbol.asyncIterator](): this {
    return this;
  }

  /**
   * The body read directly, with no promise or result object per chunk: everything queued since
   * the last read in one piece (as a Readable's read() gives it), so a reader that falls behind
   * catches up in one step, not one per socket read; null at the end; undefined when nothing is
   * there yet (`readable()` then says when). Throws the read's failure (the client's error).
   */
  read(): Buffer | null | undefined {
    if (this.queue.length > 0) {
      const chunk = this.take(this.queued);
      if (this.controller?.paused === true) this.controller.resume();
      return chunk;
    }
    if (this.failure !== undefined) throw this.failure;
    return this.ended ? null : undefined;
  }

  /**
   * Resolves once `read()` has something to give: a chunk, the end or a failure. Never rejects.
   * The wait ends in a microtask, so a socket read's pieces (a chunked body's frames come as
   * several calls) are all queued by then and read as one.
   */
  readable(): Promise<void> {
    if (this.queue.length > 0 || this.ended || this.failure !== undefined) return RESOLVED;
    return new Promise<void>((resolve) => {
      this.wake = resolve;
    });
  }

  private wakeReader(): void {
    const wake = this.wake;
    if (wake === undefined) return;
    this.wake = undefined;
    wake();
  }

  /** `read()` as an async iterator's step, for `for await`. */
  next(): Promise<IteratorResult<Buffer>> {
    let chunk: Buffer | null | undefined;
    try {
      chunk = this.read();
    } catch (error) {
      return Promise.reject(error);
    }
    if (chunk === undefined) return this.readable().then(() => this.next());
    return Promise.resolve(chunk === null ? DONE : { done: false, value: chunk });
  }

  /** A reader that stops early (a `for await` left by break or throw): the rest is not wanted. */
  return(): Promise<IteratorResult<Buffer>> {
    this.destroy();
    return Promise.resolve(DONE);
  }

  /** Nothing more of the answer will be read: the request is aborted unless it already ended. */
  destroy(): void {
    if (this.ended || this.failure !== undefined) {
      this.dropQueue();
      return;
    }
    const reason = new UpstreamAbortedError();
    this.stopListening();
    this.fail(reason);
    this.controller?.abort(reason);
  }

  /**
   * The whole body, or its first `limit` bytes when it goes past the limit (or the hold has no
   * room), `overrun` then saying which and the rest aborted. Rejects with the client's error when
   * reading fails.
   */
  collect(limit: number, hold?: MemoryHold): Promise<Buffer> {
    return this.gatherAll(limit, hold, false) as Promise<Buffer>;
  }

  /**
   * `collect`, the body left in the pieces it was read in: a large answer relayed whole (an
   * embeddings batch) goes to the client as they are, with no copy of it joined.
   */
  collectPieces(limit: number, hold?: MemoryHold): Promise<Buffer[]> {
    return this.gatherAll(limit, hold, true) as Promise<Buffer[]>;
  }

  private gatherAll(limit: number, hold: MemoryHold | undefined, pieces: boolean): Promise<Buffer | Buffer[]> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    const collecting: Collecting = { limit, hold, pieces, size: 0, resolve: noResolve, reject: noReject };
    // The usual whole answer: it all came with the headers, within the limit.
    if (this.ended && hold === undefined && this.queued <= limit) return Promise.resolve(this.taken(collecting, this.queued));
    // What came before the read began, checked as if it came now.
    const early = this.queue;
    this.dropQueue();
    for (const chunk of early) if (this.gather(collecting, chunk) !== undefined) return Promise.resolve(collecting.body as Buffer | Buffer[]);
    if (this.ended) return Promise.resolve(this.taken(collecting, collecting.size));
    return new Promise<Buffer | Buffer[]>((resolve, reject) => {
      collecting.resolve = resolve;
      collecting.reject = reject;
      this.collecting = collecting;
      if (this.controller?.paused === true) this.controller.resume();
    });
  }

  /** Keeps a chunk of a whole-body read; past the bounds, keeps what fits, ends the read and aborts the rest. */
  private gather(collecting: Collecting, chunk: Buffer): Overrun | undefined {
    const over = overrunAt(collecting.size + chunk.length, collecting.limit, collecting.hold);
    if (over === undefined) {
      this.queue.push(chunk);
      this.queued += chunk.length;
      collecting.size += chunk.length;
      return undefined;
    }
    if (over === 'too_large') {
      this.queue.push(chunk.subarray(0, collecting.limit - collecting.size));
      collecting.size = collecting.limit;
    }
    const body = this.taken(collecting, collecting.size);
    collecting.body = body;
    this.overrun = over;
    this.collecting = undefined;
    this.destroy();
    collecting.resolve(body);
    return over;
  }

  /** What a whole-body read resolves to: the queued chunks joined, or as they are. */
  private taken(collecting: Collecting, size: number): Buffer | Buffer[] {
    if (!collecting.pieces) return this.take(size);
    const chunks = this.queue;
    this.dropQueue();
    return chunks;
  }

  /** The queued chunks as one buffer (uncopied when there is one), the queue emptied. */
  private take(size: number): Buffer {
    const chunks = this.queue;
    const taken = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
    chunks.length = 0;
    this.queued = 0;
    return taken;
  }

  private fail(error: Error): void {
    this.failure = error;
    this.dropQueue();
    const collecting = this.collecting;
    if (collecting !== undefined) {
      this.collecting = undefined;
      collecting.reject(error);
    }
    this.wakeReader();
  }

  private dropQueue(): void {
    this.queue = [];
    this.queued = 0;
  }
}

interface Collecting {
  readonly limit: number;
  readonly hold: MemoryHold | undefined;
  /** Resolve to the chunks as read (`collectPieces`), not joined. */
  readonly pieces: boolean;
  size: number;
  body?: Buffer | Buffer[];
  resolve: (body: Buffer | Buffer[]) => void;
  reject: (error: unknown) => void;
}

function ignore(): void {}
function noResolve(): void {}
function noReject(): void {}
