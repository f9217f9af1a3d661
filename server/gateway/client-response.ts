import type { ServerResponse } from 'node:http';
import type { ModelRoute } from '../config/runtime-config.ts';
import type { GatewayError, Usage } from '../ir/index.ts';
import type { IngressCodec, TranslationWarning } from '../protocols/codec.ts';
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
  /** What the answer used, once it is finished or sent. */
  answer: AnswerSummary | undefined;
  /** Runs before a committed answer ends (spend settlement), so it is recorded before the client sees the end. */
  private finisher: ((summary: AnswerSummary) => Promise<void>) | undefined;
  private readonly res: ServerResponse;
  private readonly baseHeaders: Record<string, string>;

  constructor(res: ServerResponse, baseHeaders: Record<string, string>) {
    this.res = res;
    this.baseHeaders = baseHeaders;
  }

  onFinish(finisher: (summary: AnswerSummary) => Promise<void>): void {
    this.finisher = finisher;
  }

  /** Ends a committed answer (stream or not) after the finisher has run. */
  async finish(summary: AnswerSummary, last?: string | Buffer): Promise<void> {
    this.answer = summary;
    await this.finisher?.(summary);
    this.end(last);
  }

  /** A whole non-stream answer: committed, settled, then sent. */
  async sendAnswer(status: number, headers: Record<string, string | string[]>, body: string | Buffer, summary: Omit<AnswerSummary, 'answerBytes'>): Promise<void> {
    this.answer = { ...summary, answerBytes: Buffer.byteLength(body) };
    await this.finisher?.(this.answer);
    this.sendBody(status, headers, body);
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
    // Headers go out with the first body write: one packet, not two.
    this.res.writeHead(status, { ...this.baseHeaders, ...headers });
  }

  /** Writes and waits for the socket to drain when it is full, so a slow client slows the upstream. */
  async write(chunk: string | Uint8Array): Promise<void> {
    if (chunk.length === 0 || this.isClosed) return;
    if (!this.res.write(chunk)) {
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
  }

  end(chunk?: string | Buffer): void {
    if (this.isClosed) return;
    if (chunk === undefined) this.res.end();
    else this.res.end(chunk);
  }

  sendBody(status: number, headers: Record<string, string | string[]>, body: string | Buffer): void {
    this.commit(status, { ...headers, 'content-length': String(Buffer.byteLength(body)) });
    this.end(body);
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
