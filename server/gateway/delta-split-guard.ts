import { CREDENTIAL_MARKER, type CredentialMask } from './credential-mask.ts';

/**
 * JSON fields whose string values a client concatenates across stream events (text, reasoning and
 * tool-argument deltas of the six protocols). A key cut in two over such values is a key again in
 * the client's hands; any other field repeats or stands alone.
 */
const DELTA_FIELDS = ['text', 'content', 'delta', 'thinking', 'partial_json', 'arguments', 'refusal', 'input', 'reasoning_content', 'reasoning'].map((f) => Buffer.from(f));
const MARKER = Buffer.from(CREDENTIAL_MARKER);
const EMPTY = Buffer.alloc(0);

/** One stream event's JSON (an SSE event, an event-stream frame's payload), with what its framing needs to rebuild it. */
export interface GuardedUnit<C> {
  readonly bytes: Buffer;
  readonly context: C;
}

interface Pending<C> {
  readonly secret: number;
  /** Bytes of the secret cut out so far (from the end of one delta and the whole of any that followed). */
  length: number;
  /** The event the cut started in, as sent, and where its delta string's content is: to give the cut bytes back. */
  readonly template: Buffer;
  readonly contentStart: number;
  readonly contentEnd: number;
  readonly context: C;
}

/**
 * Catches an operator key cut across the text deltas of consecutive stream events, on bytes, without
 * decoding events. When an event's last delta string ends with the beginning of a key, only those
 * bytes are cut out and held (the event itself goes on at once); the next event decides: its first
 * delta string completes the key (both parts become the marker), continues it (held too), or does
 * not (the held bytes go out first, as a copy of the event they came from, so the client's text is
 * unchanged). The common event, with no key beginning at a delta's end, costs one scan of its quotes.
 */
export class DeltaSplitGuard<C> {
  private pending: Pending<C> | undefined;
  private readonly mask: CredentialMask;

  constructor(mask: CredentialMask) {
    this.mask = mask;
  }

  /** The events to send in place of this one, oldest first (usually just it, unchanged). */
  process(unit: GuardedUnit<C>): GuardedUnit<C>[] {
    let bytes = this.mask.maskBytes(unit.bytes);
    const out: GuardedUnit<C>[] = [];
    const pending = this.pending;
    if (pending !== undefined) {
      const first = deltaStrings(bytes, true)[0];
      if (first === undefined || first.end === first.start) {
        if (first === undefined) out.push(this.release()!); // nothing here continues it: give the held bytes back
      } else {
        const secret = this.mask.secrets[pending.secret]!;
        const matched = commonPrefix(bytes, first.start, first.end, secret, pending.length);
        if (pending.length + matched === secret.length) {
          bytes = splice(bytes, first.start, first.start + matched, MARKER); // the key is complete: the marker stands for it
          this.pending = undefined;
        } else if (matched === first.end - first.start) {
          pending.length += matched; // still only a piece of the key: cut it out and keep waiting
          return [{ bytes: splice(bytes, first.start, first.end, EMPTY), context: unit.context }];
        } else {
          out.push(this.release()!);
        }
      }
    }
    if (this.pending === undefined) {
      const last = deltaStrings(bytes, false)[0];
      if (last !== undefined) {
        const held = this.mask.heldPrefix(bytes, last.start, last.end, true);
        if (held.length > 0) {
          bytes = splice(bytes, last.end - held.length, last.end, EMPTY);
          this.pending = { secret: held.secret, length: held.length, template: bytes, contentStart: last.start, contentEnd: last.end - held.length, context: unit.context };
        }
      }
    }
    out.push(bytes === unit.bytes ? unit : { bytes, context: unit.context });
    return out;
  }

  /** At the stream's end: held bytes, if any, as a copy of their event. */
  flush(): GuardedUnit<C> | undefined {
    return this.release();
  }

  private release(): GuardedUnit<C> | undefined {
    const p = this.pending;
    if (p === undefined) return undefined;
    this.pending = undefined;
    const held = this.mask.secrets[p.secret]!.subarray(0, p.length);
    return { bytes: splice(p.template, p.contentStart, p.contentEnd, held), context: p.context };
  }
}

/**
 * The same rule inside one whole answer (a non-stream body): a key cut over consecutive delta
 * strings (two text blocks or parts) becomes the marker. Returns the bytes themselves when no cut
 * key is found.
 */
export function maskSplitDeltas(mask: CredentialMask, bytes: Buffer): Buffer {
  const spans = allDeltaStrings(bytes);
  const edits: { start: number; end: number; insert: Buffer }[] = [];
  let cutFrom = 0; // bytes before this were already edited
  for (let i = 0; i < spans.length - 1; i++) {
    const cut = spans[i]!;
    const held = mask.heldPrefix(bytes, Math.max(cut.start, cutFrom), cut.end, true);
    if (held.length === 0) continue;
    const secret = mask.secrets[held.secret]!;
    let length = held.length;
    for (let k = i + 1; k < spans.length; k++) {
      const span = spans[k]!;
      const matched = commonPrefix(bytes, span.start, span.end, secret, length);
      if (length + matched === secret.length) {
        edits.push({ start: cut.end - held.length, end: cut.end, insert: MARKER });
        for (let x = i + 1; x < k; x++) edits.push({ start: spans[x]!.start, end: spans[x]!.end, insert: EMPTY });
        edits.push({ start: span.start, end: span.start + matched, insert: EMPTY });
        cutFrom = span.start + matched;
        i = k - 1; // the completing string may itself end with the beginning of a key
        break;
      }
      if (matched !== span.end - span.start) break;
      length += matched;
    }
  }
  if (edits.length === 0) return bytes;
  const parts: Buffer[] = [];
  let from = 0;
  for (const edit of edits) {
    parts.push(bytes.subarray(from, edit.start), edit.insert);
    from = edit.end;
  }
  parts.push(bytes.subarray(from));
  return Buffer.concat(parts);
}

interface StringSpan {
  readonly start: number;
  readonly end: number;
}

const NONE: StringSpan[] = [];

/**
 * The content span of the first (or last) string value of a delta field in `bytes`, as a list of
 * zero or one (no allocation for the usual miss). Quotes are walked with native searches; a quote
 * after an odd run of backslashes is inside a string.
 */
function deltaStrings(bytes: Buffer, first: boolean, all?: StringSpan[]): StringSpan[] {
  let found: StringSpan[] = NONE;
  let fieldIsDelta = false;
  let at = nextQuote(bytes, 0);
  while (at !== -1) {
    const close = nextQuote(bytes, at + 1);
    if (close === -1) break;
    const after = nextNonSpace(bytes, close + 1);
    if (bytes[after] === 0x3a) {
      fieldIsDelta = isDeltaField(bytes, at + 1, close); // a field name; its value may follow
    } else {
      if (fieldIsDelta && isValueOfPreviousField(bytes, at)) {
        found = [{ start: at + 1, end: close }];
        if (first) return found;
        all?.push(found[0]!);
      }
      fieldIsDelta = false;
    }
    at = nextQuote(bytes, close + 1);
  }
  return found;
}

function allDeltaStrings(bytes: Buffer): StringSpan[] {
  const all: StringSpan[] = [];
  deltaStrings(bytes, false, all);
  return all;
}

function nextQuote(bytes: Buffer, from: number): number {
  let q = bytes.indexOf(0x22, from);
  while (q !== -1) {
    let slashes = 0;
    while (q - slashes - 1 >= from && bytes[q - slashes - 1] === 0x5c) slashes++;
    if (slashes % 2 === 0) return q;
    q = bytes.indexOf(0x22, q + 1);
  }
  return -1;
}

function nextNonSpace(bytes: Buffer, from: number): number {
  let i = from;
  while (i < bytes.length && (bytes[i] === 0x20 || bytes[i] === 0x0a || bytes[i] === 0x0d || bytes[i] === 0x09)) i++;
  return i;
}

/** The string opening at `open` directly follows a `:` (so it is the value of the field named just before). */
function isValueOfPreviousField(bytes: Buffer, open: number): boolean {
  let i = open - 1;
  while (i >= 0 && (bytes[i] === 0x20 || bytes[i] === 0x0a || bytes[i] === 0x0d || bytes[i] === 0x09)) i--;
  return bytes[i] === 0x3a;
}

function isDeltaField(bytes: Buffer, start: number, end: number): boolean {
  const length = end - start;
  for (const field of DELTA_FIELDS) {
    if (field.length !== length) continue;
    let k = 0;
    while (k < length && bytes[start + k] === field[k]) k++;
    if (k === length) return true;
  }
  return false;
}

/** How many bytes from `bytes[start]` on equal the secret from `from` on. */
function commonPrefix(bytes: Buffer, start: number, end: number, secret: Buffer, from: number): number {
  let k = 0;
  while (start + k < end && from + k < secret.length && bytes[start + k] === secret[from + k]) k++;
  return k;
}

function splice(bytes: Buffer, start: number, end: number, insert: Buffer): Buffer {
  return Buffer.concat([bytes.subarray(0, start), insert, bytes.subarray(end)]);
}
