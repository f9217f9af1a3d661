import { crc32 } from 'node:zlib';
import { decodeFrame, encodeFrame } from '../framing/eventstream-frame.ts';
import { lastSseEventEnd, sseEventEnd } from '../framing/sse-event-end.ts';
import type { CredentialMask } from './credential-mask.ts';
import { DeltaSplitGuard, type GuardedUnit } from './delta-split-guard.ts';

/**
 * A committed stream's bytes on their way to the client, with the operator's credentials taken
 * out whatever the cut between reads or events. By framing:
 * - SSE: whole events (a client acts on an event only at its blank line, so an event's first half
 *   waiting for its second delays nothing the client could use), each through `DeltaSplitGuard`.
 * - AWS event-stream: whole frames; a frame whose payload changes is encoded again (lengths, CRCs).
 * - anything else (Gemini's JSON-array stream): bytes, holding back only a tail that is the
 *   beginning of a key until the next read shows whether the key follows.
 */
export interface ClientStreamMask {
  /** The bytes to send now for this chunk (possibly empty). */
  push(chunk: Buffer): Buffer;
  /** What is still held, at the stream's end. */
  end(): Buffer;
}

export function clientStreamMask(mask: CredentialMask, contentType: string | undefined): ClientStreamMask {
  const type = contentType?.toLowerCase() ?? '';
  if (type.startsWith('text/event-stream')) return new SseMask(mask);
  if (type.startsWith('application/vnd.amazon.eventstream')) return new EventStreamMask(mask);
  return new ByteMask(mask);
}

class ByteMask implements ClientStreamMask {
  private held: Buffer | undefined;
  private readonly mask: CredentialMask;

  constructor(mask: CredentialMask) {
    this.mask = mask;
  }

  push(chunk: Buffer): Buffer {
    const joined = this.held === undefined ? chunk : Buffer.concat([this.held, chunk]);
    const bytes = this.mask.maskBytes(joined); // itself when no secret is in it (one native search a secret)
    const keep = this.mask.heldPrefix(bytes, 0, bytes.length).length;
    this.held = keep === 0 ? undefined : bytes.subarray(bytes.length - keep);
    return keep === 0 ? bytes : bytes.subarray(0, bytes.length - keep);
  }

  end(): Buffer {
    const rest = this.held ?? Buffer.alloc(0);
    this.held = undefined;
    return rest;
  }
}

/**
 * What the SSE and event-stream masks share: whole units (events, frames) go through a
 * `DeltaSplitGuard`, and an incomplete unit at the end of a read waits for the next one.
 */
abstract class UnitMask<C> implements ClientStreamMask {
  protected partial: Buffer | undefined;
  protected readonly guard: DeltaSplitGuard<C>;
  protected readonly mask: CredentialMask;

  constructor(mask: CredentialMask) {
    this.mask = mask;
    this.guard = new DeltaSplitGuard(mask);
  }

  abstract push(chunk: Buffer): Buffer;
  abstract end(): Buffer;

  /** This read after what the last one left incomplete. */
  protected joined(chunk: Buffer): Buffer {
    return this.partial === undefined ? chunk : Buffer.concat([this.partial, chunk]);
  }

  /**
   * Keeps `bytes` from `start` (an incomplete unit) for the next read and returns what goes out:
   * `bytes` up to `start` as they came when no unit changed (`out` undefined), else `out` joined.
   */
  protected settle(bytes: Buffer, start: number, out: Buffer[] | undefined): Buffer {
    this.partial = start === bytes.length ? undefined : Buffer.from(bytes.subarray(start));
    if (out === undefined) return start === bytes.length ? bytes : bytes.subarray(0, start);
    return Buffer.concat(out);
  }
}

class SseMask extends UnitMask<undefined> {
  push(chunk: Buffer): Buffer {
    const bytes = this.joined(chunk);
    // The usual chunk: whole events, no secret, no delta ending like one begins; native searches
    // on its bytes decide it, and it goes out as it came.
    if (this.guard.idle && !this.mask.mayHold(bytes)) {
      const end = lastSseEventEnd(bytes);
      this.partial = end === bytes.length ? undefined : Buffer.from(bytes.subarray(end));
      const sent = end === bytes.length ? bytes : bytes.subarray(0, end);
      this.guard.passed(sent);
      return sent;
    }
    let out: Buffer[] | undefined; // only when something changed: the usual chunk goes out as it came
    let start = 0;
    for (let end = sseEventEnd(bytes, start); end !== -1; end = sseEventEnd(bytes, start)) {
      const event = bytes.subarray(start, end);
      const units = this.guard.process({ bytes: event, context: undefined });
      if (out !== undefined || units.length !== 1 || units[0]!.bytes !== event) {
        out ??= [bytes.subarray(0, start)];
        for (const unit of units) out.push(unit.bytes);
      }
      start = end;
    }
    return this.settle(bytes, start, out);
  }

  end(): Buffer {
    const parts: Buffer[] = [];
    if (this.partial !== undefined) for (const unit of this.guard.process({ bytes: this.partial, context: undefined })) parts.push(unit.bytes);
    this.partial = undefined;
    const held = this.guard.flush();
    if (held !== undefined) parts.push(held.bytes);
    return Buffer.concat(parts);
  }
}

/** An event-stream frame's headers, to encode a changed payload again. */
type FrameContext = Buffer;

class EventStreamMask extends UnitMask<FrameContext> {
  push(chunk: Buffer): Buffer {
    const bytes = this.joined(chunk);
    const careful = !this.guard.idle || this.mask.mayHold(bytes);
    let out: Buffer[] | undefined;
    let start = 0;
    while (bytes.length - start >= 12) {
      const total = bytes.readUInt32BE(start);
      if (total < 16 || bytes.length - start < total) break;
      const frame = bytes.subarray(start, start + total);
      if (!careful) this.guard.passed(payloadOf(frame));
      const sent = careful ? this.frame(frame) : [frame];
      if (out !== undefined || sent.length !== 1 || sent[0] !== frame) {
        out ??= [bytes.subarray(0, start)];
        out.push(...sent);
      }
      start += total;
    }
    return this.settle(bytes, start, out);
  }

  end(): Buffer {
    // A partial frame at the end is broken anyway; only its credentials matter.
    const parts: Buffer[] = this.partial === undefined ? [] : [this.mask.maskBytes(this.partial)];
    this.partial = undefined;
    const held = this.guard.flush();
    if (held !== undefined) parts.unshift(reframe(held, this.mask));
    return Buffer.concat(parts);
  }

  private frame(frame: Buffer): Buffer[] {
    const headers = frame.subarray(12, 12 + frame.readUInt32BE(4));
    const payload = payloadOf(frame);
    const units = this.guard.process({ bytes: payload, context: frame });
    const headersClean = this.mask.maskBytes(headers) === headers;
    if (headersClean && units.length === 1 && units[0]!.bytes === payload) return [frame];
    return units.map((unit) => (unit.bytes === payload && headersClean ? frame : reframe(unit, this.mask)));
  }
}

function payloadOf(frame: Buffer): Buffer {
  return frame.subarray(12 + frame.readUInt32BE(4), frame.length - 4);
}

/** A frame with a new payload (and its headers masked), encoded again with fresh lengths and CRCs. */
function reframe(unit: GuardedUnit<FrameContext>, mask: CredentialMask): Buffer {
  const frame = unit.context;
  const headers = frame.subarray(12, 12 + frame.readUInt32BE(4));
  if (mask.maskBytes(headers) === headers) {
    // The usual case, headers unchanged: the prelude and both CRCs computed here (zlib's CRC32 is the same IEEE CRC).
    const out = Buffer.allocUnsafe(12 + headers.length + unit.bytes.length + 4);
    out.writeUInt32BE(out.length, 0);
    out.writeUInt32BE(headers.length, 4);
    out.writeUInt32BE(crc32(out.subarray(0, 8)), 8);
    headers.copy(out, 12);
    unit.bytes.copy(out, 12 + headers.length);
    out.writeUInt32BE(crc32(out.subarray(0, out.length - 4)), out.length - 4);
    return out;
  }
  return reframeWithHeaders(unit, mask);
}

function reframeWithHeaders(unit: GuardedUnit<FrameContext>, mask: CredentialMask): Buffer {
  const { headers } = decodeFrame(unit.context);
  const masked: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) masked[name] = mask.maskText(value);
  return Buffer.from(encodeFrame(masked, unit.bytes.toString('utf8')));
}
