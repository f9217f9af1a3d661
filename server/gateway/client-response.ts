import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { ModelRoute } from '../config/runtime-config.ts';
import type { GatewayError, Usage } from '../ir/index.ts';
import type { IngressCodec, TranslationWarning } from '../protocols/codec.ts';
import { clientStreamMask, type ClientStreamMask } from './client-stream-mask.ts';
import { NO_CREDENTIALS, type CredentialMask } from './credential-mask.ts';
import { mayHoldPieces } from './credential-mask-pieces.ts';
import { maskSplitDeltas } from './delta-split-guard.ts';
import { warningsText } from '../protocols/shared/stream-warnings.ts';

/** Header that lists what a translation could not carry, e.g. `dropped=top_k, reshaped=messages[3]`. */
export const WARNINGS_HEADER = 'x-gateway-warnings';

export function warningsHeader(warnings: readonly TranslationWarning[]): Record<string, string> {
  return warnings.length === 0 ? {} : { [WARNINGS_HEADER]: warningsText(warnings) };
}

/** What an answered request used: the settlement of its spend is computed from it. */
export interface AnswerSummary {
  readonly lane: ModelRoute;
  /** The upstream's usage report, or null when it sent none (a cut stream, say). */
  readonly usage: Usage | null;
  /** Bytes of answer the client received, for an estimate when there is no usage report. */
  readonly answerBytes: number;
}

/**
 * The client's response, written once: committing sends status and headers, then the body streams.
 * It also notes what the request record reads from it: the status sent, when the first byte went
 * out, how long writes waited on a slow client, and the answer's summary.
 */
export class ClientResponse {
  private committed = false;
  /** The status sent (0 until committed). */
  status = 0;
  /** performance.now() at commit: headers go out with the first body write. */
  committedAt: number | undefined;
  /** Time spent waiting for the client's socket to drain (backpressure): neither upstream nor gateway time. */
  clientWaitMs = 0;
  /** Something was to be written after the client had gone: it did not receive the whole answer. */
  dropped = false;
  /** What the answer used, once it is finished or sent. */
  answer: AnswerSummary | undefined;
  /** Runs before a committed answer ends (spend settlement), so it is recorded before the client sees the end. */
  private finisher: ((summary: AnswerSummary) => Promise<void>) | undefined;
  private readonly res: ServerResponse;
  private readonly baseHeaders: Record<string, string>;
  /**
   * The credentials of every lane this request has tried. Every byte to the client passes here
   * (headers at commit, whole bodies, each stream write), so this is the one place that keeps
   * the operator's upstream credentials from clients.
   */
  private credentials: CredentialMask = NO_CREDENTIALS;
  /** A committed stream's bytes in flight through the credential mask (made at the first write). */
  private streamMask: ClientStreamMask | undefined;
  /** Stream writes are held (the socket corked) until the loop turn's end or `end`: see `holdWrites`. */
  private corked: Socket | undefined;
  /** The committed answer's content type, which picks the stream mask's framing; undefined: no mask needed. */
  private maskedContentType: string | undefined;

  constructor(res: ServerResponse, baseHeaders: Record<string, string>) {
    this.res = res;
    this.baseHeaders = baseHeaders;
  }

  /** An attempt on a lane is about to run: its provider's credentials are masked from here on. */
  guardCredentials(mask: CredentialMask): void {
    this.credentials = this.credentials.union(mask);
  }

  onFinish(finisher: (summary: AnswerSummary) => Promise<void>): void {
    this.finisher = finisher;
  }

  /**
   * Ends a committed answer (stream or not) after the finisher has run. Without a finisher
   * (governance off) it ends at once and returns nothing: no promise for the usual stream's end.
   */
  finish(summary: AnswerSummary, last?: string | Buffer): Promise<void> | undefined {
    this.answer = summary;
    const finisher = this.finisher;
    if (finisher === undefined) {
      this.end(last);
      return undefined;
    }
    return finisher(summary).then(() => this.end(last));
  }

  /**
   * The client left after the request reached an upstream: the answer is settled all the same
   * (whoever hung up, the upstream may bill it), with what it got (usage, bytes sent) or an
   * estimate. Nothing is written. No-op when the answer was already settled.
   */
  async abandon(summary: AnswerSummary): Promise<void> {
    if (this.answer !== undefined) return;
    this.answer = summary;
    await this.finisher?.(summary);
  }

  /**
   * A whole non-stream answer (or one in the pieces it was read in): committed, settled, then sent.
   * Without a finisher (no governance) it is sent at once and nothing is returned: no async frame
   * or promise per answer; with one, the returned promise ends once it is sent.
   */
  sendAnswer(
    status: number,
    headers: Record<string, string | string[]>,
    body: string | Buffer | readonly Buffer[],
    summary: Omit<AnswerSummary, 'answerBytes'>,
  ): Promise<void> | undefined {
    const answer: AnswerSummary = { lane: summary.lane, usage: summary.usage, answerBytes: byteLength(body) };
    this.answer = answer;
    const finisher = this.finisher;
    if (finisher === undefined) {
      this.sendBody(status, headers, body);
      return undefined;
    }
    return finisher(answer).then(() => this.sendBody(status, headers, body));
  }

  get isCommitted(): boolean {
    return this.committed || this.res.headersSent;
  }

  /** The client went away: nothing more can reach it. */
  get isClosed(): boolean {
    return this.res.destroyed || this.res.writableEnded;
  }

  commit(status: number, headers: Record<string, string | string[]>): void {
    if (this.isCommitted) return;
    this.committed = true;
    this.status = status;
    this.committedAt = performance.now();
    const all = { ...this.baseHeaders, ...headers };
    if (!this.credentials.isEmpty) {
      // for-in, not Object.entries: no array per header on every answer.
      for (const name in all) {
        const value = all[name]!;
        all[name] = typeof value === 'string' ? this.credentials.maskText(value) : value.map((v) => this.credentials.maskText(v));
      }
      this.maskedContentType = contentTypeOf(all) ?? '';
    }
    // Headers go out with the first body write: one packet, not two.
    this.res.writeHead(status, all);
  }

  /**
   * Writes; when the socket is full, returns the wait for it to drain (a slow client slows the
   * upstream). Undefined when there is nothing to wait for: no promise made for the usual write.
   */
  write(data: string | Uint8Array): Promise<void> | undefined {
    if (data.length === 0) return undefined;
    if (this.isClosed) {
      this.dropped = true;
      return undefined;
    }
    const mask = this.maskedStream();
    const chunk =
      mask === undefined
        ? data
        : mask.push(typeof data === 'string' ? Buffer.from(data) : Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength));
    if (chunk.length === 0) return undefined;
    this.holdWrites();
    if (this.res.write(chunk)) return undefined;
    this.releaseWrites(); // what is buffered goes out now: a corked socket never drains
    return this.drained();
  }

  private async drained(): Promise<void> {
    const waitStart = performance.now();
    await new Promise<void>((resolve) => {
      const done = () => {
        this.res.off('drain', done);
        this.res.off('close', done);
        resolve();
      };
      this.res.on('drain', done);
      this.res.on('close', done);
    });
    this.clientWaitMs += performance.now() - waitStart;
  }

  /**
   * Writes of one turn of the event loop go out together: the socket is corked at the first and
   * uncorked once the loop has run the I/O callbacks at hand (setImmediate). A stream whose end
   * arrives with its last bytes (the usual short answer, read whole) is then finished before the
   * socket is written: body and the chunked terminator in one packet, one writev instead of two.
   * A live stream's chunk waits at most for the rest of the current loop turn.
   */
  private holdWrites(): void {
    if (this.corked !== undefined) return;
    // The socket, not the response: a corked response keeps chunks apart from the socket, and its
    // `end()` would send the chunked terminator ahead of them.
    const socket = this.res.socket;
    if (socket === null) return;
    this.corked = socket;
    socket.cork();
    setImmediate(this.releaseWrites);
  }

  /** Uncorks what `holdWrites` corked (no-op when `end` already sent it). */
  private readonly releaseWrites = (): void => {
    const socket = this.corked;
    if (socket === undefined) return;
    this.corked = undefined;
    socket.uncork();
  };

  end(chunk?: string | Buffer): void {
    this.corked = undefined; // ending sends everything held (it uncorks the socket fully), in one write
    if (this.isClosed) return;
    const mask = this.maskedStream();
    if (mask === undefined) {
      if (chunk === undefined) this.res.end();
      else this.res.end(chunk);
      return;
    }
    this.streamMask = undefined;
    this.maskedContentType = undefined;
    const last = chunk === undefined ? undefined : mask.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    const held = mask.end();
    this.res.end(last === undefined || last.length === 0 ? held : held.length === 0 ? last : Buffer.concat([last, held]));
  }

  sendBody(status: number, headers: Record<string, string | string[]>, body: string | Buffer | readonly Buffer[]): void {
    const sent = this.credentials.isEmpty ? body : maskedBody(this.credentials, body);
    this.commit(status, { ...headers, 'content-length': String(byteLength(sent)) });
    this.maskedContentType = undefined; // the body is whole and already masked
    if (typeof sent === 'string' || Buffer.isBuffer(sent)) this.end(sent);
    else this.endPieces(sent);
  }

  /** A whole body in pieces, sent as they are: the socket corked over the writes, `end` sends them in one writev. */
  private endPieces(pieces: readonly Buffer[]): void {
    this.corked = undefined;
    if (this.isClosed) return;
    this.res.socket?.cork(); // end() uncorks the socket fully
    for (let i = 0; i < pieces.length - 1; i++) this.res.write(pieces[i]!);
    if (pieces.length === 0) this.res.end();
    else this.res.end(pieces[pieces.length - 1]);
  }

  private maskedStream(): ClientStreamMask | undefined {
    if (this.streamMask === undefined && this.maskedContentType !== undefined) this.streamMask = clientStreamMask(this.credentials, this.maskedContentType);
    return this.streamMask;
  }

  /** An error in the client's protocol shape. After commit, the caller ends the stream instead. */
  sendError(codec: IngressCodec, error: GatewayError, extraHeaders: Record<string, string> = {}): void {
    if (this.isCommitted) {
      this.res.destroy();
      return;
    }
    const envelope = codec.encodeError(error);
    // SDKs retry 402/429s unless told not to; the gateway's budget refusals will not change on retry.
    const noRetry: Record<string, string> = error.kind === 'billing' ? { 'x-should-retry': 'false' } : {};
    this.sendBody(envelope.status, { ...envelope.headers, ...noRetry, ...extraHeaders }, envelope.body);
  }
}

/**
 * A whole body with the credentials masked; its bytes as they are when native searches on them
 * find nothing to do (a string body is encoded once, here, not again to be sent; a body in pieces
 * stays in them, and is joined only to be masked).
 */
function maskedBody(mask: CredentialMask, body: string | Buffer | readonly Buffer[]): Buffer | readonly Buffer[] {
  if (typeof body !== 'string' && !Buffer.isBuffer(body)) {
    if (!mayHoldPieces(mask, body)) return body;
    return maskSplitDeltas(mask, mask.maskBytes(Buffer.concat(body)));
  }
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  if (!mask.mayHold(bytes)) return bytes;
  return maskSplitDeltas(mask, mask.maskBytes(bytes));
}

function byteLength(body: string | Buffer | readonly Buffer[]): number {
  if (typeof body === 'string' || Buffer.isBuffer(body)) return Buffer.byteLength(body);
  let size = 0;
  for (let i = 0; i < body.length; i++) size += body[i]!.length;
  return size;
}

function contentTypeOf(headers: Record<string, string | string[]>): string | undefined {
  const value = headers['content-type'] ?? headers['Content-Type'];
  return typeof value === 'string' ? value : undefined;
}
