import type { IncomingMessage } from 'node:http';
import type { BodyHold } from '../../gateway/body-memory.ts';
import { refusal } from '../../gateway/request-body.ts';
import { declaredOverrun, overrunAt } from '../../http-body/byte-budget.ts';
import { GatewayFailure, gatewayError } from '../../ir/index.ts';
import { multipartBoundary } from './multipart-boundary.ts';
import { ModelFieldScanner, type ModelField } from './model-field-scanner.ts';

/**
 * Bytes after the model part kept so a failed first lane can be retried on another: an upload
 * whose lane fails before the gateway has read more than this is replayed to the next lane; past
 * it, the copy is dropped and the upload is no longer replayable (the client gets the lane's error).
 */
export const REPLAY_BYTES = 1024 * 1024;

/**
 * A multipart/form-data upload going through to the upstream as it arrives: read only as far as
 * its `model` part (held, bounded by the request limit: clients usually send it first, the Node
 * SDK after the file), then streamed, counted against `limits.max_request_bytes` (413 the moment
 * it passes), and kept for a replay only while small.
 */
export class StreamedUpload {
  /** Set when the client's upload broke a rule while streaming (413): the attempt's answer. */
  failure: GatewayFailure | undefined;
  /** Bytes read from the client so far. */
  private total = 0;
  /** Chunks after the head, from index `base` on (earlier ones were dropped once not replayable). */
  private readonly log: Buffer[] = [];
  private base = 0;
  private replayable = true;
  private ended = false;
  private reading: Promise<void> | undefined;
  private attempts = 0;

  private readonly source: AsyncIterator<Buffer>;
  private readonly limit: number;
  private readonly hold: BodyHold;
  private readonly head: Buffer;
  readonly model: ModelField;
  /** The content-length the client declared (undefined when none). */
  readonly declaredLength: number | undefined;
  readonly contentType: string;

  private constructor(
    source: AsyncIterator<Buffer>,
    limit: number,
    hold: BodyHold,
    head: Buffer,
    model: ModelField,
    declaredLength: number | undefined,
    contentType: string,
  ) {
    this.source = source;
    this.limit = limit;
    this.hold = hold;
    this.head = head;
    this.model = model;
    this.declaredLength = declaredLength;
    this.contentType = contentType;
    this.total = head.length;
  }

  /** Reads the client's upload up to the end of its `model` part (400 without one, 413 over the limit). */
  static async open(req: IncomingMessage, limit: number, hold: BodyHold): Promise<StreamedUpload> {
    const contentType = req.headers['content-type'];
    const scanner = new ModelFieldScanner(multipartBoundary(contentType));
    const declared = Number(req.headers['content-length']);
    // Only the limit for the declared length: the memory held is what is kept, not the whole upload.
    const overDeclared = declaredOverrun(req.headers['content-length'], limit, undefined);
    if (overDeclared !== undefined) throw refusal(overDeclared, limit);
    const source = req[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    let size = 0;
    for (;;) {
      const next = await source.next();
      if (next.done === true) throw missingModel('the body ended before a complete model field');
      size += next.value.length;
      const over = overrunAt(size, limit, hold);
      if (over !== undefined) throw refusal(over, limit);
      const found = scanner.push(next.value);
      if (found === 'absent') throw missingModel('the multipart body has no model field');
      if (found !== 'more')
        return new StreamedUpload(source, limit, hold, Buffer.from(scanner.head), found, Number.isFinite(declared) ? declared : undefined, contentType!);
    }
  }

  /** Bytes of the upload read from the client so far (all of it once the upstream has answered). */
  get bytesRead(): number {
    return this.total;
  }

  /** Small text fields before the model part (`n`, `response_format`). */
  field(name: string): string | undefined {
    return this.model.fields.get(name);
  }

  /** Can another attempt send the whole upload again (nothing past the replay bound was read)? */
  get canStart(): boolean {
    return this.attempts === 0 || this.replayable;
  }

  /** The body's length with the model's value replaced (undefined when the client did not declare one). */
  lengthWith(upstreamModel: string): number | undefined {
    if (this.declaredLength === undefined) return undefined;
    return this.declaredLength - (this.model.end - this.model.start) + Buffer.byteLength(upstreamModel);
  }

  /** The upload for one attempt: the head with the model rewritten, what was kept, then the rest as it arrives. */
  body(upstreamModel: string): () => AsyncIterable<Buffer> {
    const prefix =
      upstreamModel === this.model.value
        ? [this.head]
        : [this.head.subarray(0, this.model.start), Buffer.from(upstreamModel), this.head.subarray(this.model.end)];
    return () => {
      this.attempts++;
      return this.chunks(prefix);
    };
  }

  private async *chunks(prefix: readonly Buffer[]): AsyncGenerator<Buffer> {
    yield* prefix;
    let index = 0;
    for (;;) {
      if (index < this.base) throw new Error('the upload is no longer replayable');
      if (index < this.base + this.log.length) {
        yield this.log[index - this.base]!;
        index++;
        continue;
      }
      if (this.ended) return;
      await this.readMore();
    }
  }

  /** One more chunk from the client into the log; one read at a time, whichever attempt asks. */
  private readMore(): Promise<void> {
    this.reading ??= this.read().finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  private async read(): Promise<void> {
    const next = await this.source.next();
    if (next.done === true) {
      this.ended = true;
      return;
    }
    this.total += next.value.length;
    // Too much to keep: from here the upload only goes forward, chunk by chunk.
    if (this.replayable && this.total - this.head.length > REPLAY_BYTES) this.replayable = false;
    // The limit always; the memory held only while the upload is kept for a replay.
    const over = overrunAt(this.total, this.limit, this.replayable ? this.hold : undefined);
    if (over !== undefined) {
      this.failure = refusal(over, this.limit);
      throw this.failure;
    }
    if (!this.replayable) {
      this.base += this.log.length;
      this.log.length = 0;
    }
    this.log.push(next.value);
  }
}

function missingModel(why: string): GatewayFailure {
  return new GatewayFailure(gatewayError('invalid_request', `model: a model name is required (${why})`, { param: 'model', code: 'missing_model' }));
}
