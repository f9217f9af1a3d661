import type { Readable } from 'node:stream';
import { declaredOverrun, overrunAt, type MemoryHold, type Overrun } from './byte-budget.ts';

/**
 * The one bounded body reader: client request bodies (data plane, admin plane, /auth/token, the
 * demo upstream) and upstream answers alike. What differs between them is what happens past the
 * limit, said by the caller:
 * - `fail`: stop reading and reject with the caller's error (the data plane's 413 or 503 in the
 *   client's protocol shape); the body is destroyed, as nothing more of it will be read;
 * - `drain`: stop keeping, read and drop the rest without waiting for it, and say so (`overLimit`),
 *   so the caller can still answer on the connection (admin plane, /auth/token, demo upstream);
 * - `truncate`: keep exactly the first `limit` bytes and destroy the rest (an upstream's error or
 *   answer body, relayed or decoded).
 */
export type PastLimit =
  | { readonly then: 'fail'; readonly error: (overrun: Overrun, limit: number) => Error }
  | { readonly then: 'drain' }
  | { readonly then: 'truncate' };

export interface BoundedRead {
  readonly limit: number;
  readonly past: PastLimit;
  /** A request's content-length, checked before the first byte is read (a body past the limit is refused unread). */
  readonly declaredLength?: string | undefined;
  /** Memory accounting for a body the caller keeps (an overrun `no_room` when it does not fit). */
  readonly hold?: MemoryHold;
}

export interface BodyRead {
  readonly body: Buffer;
  /** `drain` only: the body went past the limit (`body` is then what was kept before it). */
  readonly overLimit: boolean;
}

/**
 * A body that gathers itself whole (an upstream answer, upstream/upstream-reply.ts), with no
 * stream or per-chunk promise between: up to the limit, the rest let go past it.
 */
export interface CollectableBody {
  /** The whole body, or what fit before it went past the bounds (then `overrun` says why). */
  collect(limit: number, hold?: MemoryHold): Promise<Buffer>;
  readonly overrun: Overrun | undefined;
}

const NOTHING = Buffer.alloc(0);
const ignore = () => {};

/** Reads a whole body within the bounds; past them, what `options.past` says. */
export async function readBoundedBody(source: Readable | CollectableBody, options: BoundedRead): Promise<BodyRead> {
  const { limit, past, hold } = options;
  if (!isReadable(source)) return collected(source, await source.collect(limit, hold), past, limit);
  const declared = declaredOverrun(options.declaredLength, limit, hold);
  if (declared !== undefined) return overrun(source, past, declared, limit, NOTHING);
  const { chunks, size, over } = await gather(source, limit, past.then === 'truncate', hold);
  if (over === undefined) return { body: concat(chunks, size), overLimit: false };
  // Refused once read from: nothing more of it will be read (as a `for await` left by break would).
  if (past.then === 'fail') source.destroy();
  return overrun(source, past, over, limit, concat(chunks, size));
}

interface Gathered {
  readonly chunks: Buffer[];
  readonly size: number;
  readonly over: Overrun | undefined;
}

/**
 * A stream's chunks up to the end or the first past the bounds (kept cut at the limit when
 * `truncate`), read through its events rather than an async iterator: one request body each
 * request, and the iterator's promise per chunk and its end-of-stream bookkeeping showed in
 * profiles. Past the bounds the listeners go and the stream is left paused to the caller (to
 * drain or destroy). Rejects as `for await` would: with the stream's error, or a
 * premature close when it closes before its end.
 */
function gather(source: Readable, limit: number, truncate: boolean, hold: MemoryHold | undefined): Promise<Gathered> {
  if (source.errored !== null) return Promise.reject(source.errored);
  if (source.readableEnded) return Promise.resolve({ chunks: [], size: 0, over: undefined });
  if (source.destroyed) return Promise.reject(prematureClose());
  return new Promise<Gathered>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      source.off('data', onData);
      source.off('end', onEnd);
      source.off('error', onError);
      source.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      const over = overrunAt(size + chunk.length, limit, hold);
      if (over === undefined) {
        chunks.push(chunk);
        size += chunk.length;
        return;
      }
      if (truncate) {
        chunks.push(chunk.subarray(0, limit - size));
        size = limit;
      }
      stop();
      source.pause(); // until the caller drains or destroys it
      resolve({ chunks, size, over });
    };
    const onEnd = () => {
      stop();
      resolve({ chunks, size, over: undefined });
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    const onClose = () => {
      stop();
      reject(prematureClose());
    };
    source.on('data', onData);
    source.on('end', onEnd);
    source.on('error', onError);
    source.on('close', onClose);
  });
}

function prematureClose(): Error {
  return Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
}

/**
 * A request body streamed through (a multipart upload relayed as it arrives) under the same
 * bounds: yields each chunk as it comes, and throws the caller's error before the first byte when
 * the declared length is already past them, or at the first chunk that goes past them.
 */
export async function* boundedChunks(
  source: Readable,
  options: Omit<BoundedRead, 'past'> & { readonly error: (overrun: Overrun, limit: number) => Error },
): AsyncGenerator<Buffer> {
  const { limit, hold } = options;
  const declared = declaredOverrun(options.declaredLength, limit, hold);
  if (declared !== undefined) throw options.error(declared, limit);
  let size = 0;
  for await (const chunk of source) {
    size += (chunk as Buffer).length;
    const over = overrunAt(size, limit, hold);
    if (over !== undefined) throw options.error(over, limit);
    yield chunk as Buffer;
  }
}

function overrun(source: Readable, past: PastLimit, over: Overrun, limit: number, kept: Buffer): BodyRead {
  switch (past.then) {
    case 'fail':
      throw past.error(over, limit);
    case 'drain':
      source.on('error', ignore); // the client may go away while the rest drains; nobody waits for it
      source.resume();
      return { body: kept, overLimit: true };
    case 'truncate':
      source.destroy();
      return { body: kept, overLimit: false };
  }
}

/** A collectable body has let go of the rest itself; past the limit only `fail` differs. */
function collected(source: CollectableBody, body: Buffer, past: PastLimit, limit: number): BodyRead {
  const over = source.overrun;
  if (over === undefined) return { body, overLimit: false };
  if (past.then === 'fail') throw past.error(over, limit);
  return { body, overLimit: past.then === 'drain' };
}

function isReadable(source: Readable | CollectableBody): source is Readable {
  return (source as Partial<CollectableBody>).collect === undefined;
}

function concat(chunks: Buffer[], size: number): Buffer {
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
}

const TRUNCATE: PastLimit = { then: 'truncate' };

/** An upstream's answer or error body, for relaying or decoding: at most `limit` bytes (the rest is dropped). */
export function readUpstreamBody(body: Readable | CollectableBody, limit = 1024 * 1024): Promise<Buffer> {
  // Not async: a collectable body's own promise is handed back, with no wrapper around it.
  return isReadable(body) ? readBoundedBody(body, { limit, past: TRUNCATE }).then(bodyOf) : body.collect(limit);
}

function bodyOf(read: BodyRead): Buffer {
  return read.body;
}
