import { CREDENTIAL_MARKER, DELTA_FIELD_NAMES, HOLD_FROM, type CredentialMask } from './credential-mask.ts';

const DELTA_FIELDS = DELTA_FIELD_NAMES.map((f) => Buffer.from(f));
/** Bytes before a delta string that must match for held bytes to move into it (they name the block: index, field). */
const CONTEXT_BYTES = 48;
const MARKER = Buffer.from(CREDENTIAL_MARKER);
const EMPTY = Buffer.alloc(0);

/** One stream event's JSON (an SSE event, an event-stream frame's payload), with what its framing needs to rebuild it. */
export interface GuardedUnit<C> {
  readonly bytes: Buffer;
  readonly context: C;
}

interface Pending<C> {
  readonly secret: number;
  /** Bytes of the secret seen so far, in order (at the end of one delta, then whole deltas). */
  length: number;
  /** Of those, the first bytes the client already has (a short beginning, not held: see HOLD_FROM). */
  readonly sent: number;
  /** Where held bytes go back if the key does not follow: the event they were cut from (as sent) and its delta string. */
  template: { readonly bytes: Buffer; readonly contentStart: number; readonly contentEnd: number; readonly context: C } | undefined;
}

/**
 * Catches an operator key cut across the text deltas of consecutive stream events, on bytes, without
 * decoding events. When an event's last delta string ends with the beginning of a key, those bytes
 * are cut out and held (the event itself goes on at once); the next event decides: its first delta
 * string completes the key (the marker stands for it), continues it (cut and held too), or does
 * not: the held bytes are put back at the start of that string when it continues the same block
 * (the bytes before it match), else sent first as a copy of the event they came from. Either way
 * the client's text is unchanged. Callers skip events that `CredentialMask.mayHold` clears.
 */
export class DeltaSplitGuard<C> {
  private pending: Pending<C> | undefined;
  /** What went out last: a short key beginning at its end is looked for only when an event starts with what follows one. */
  private previous: Buffer | undefined;
  private readonly mask: CredentialMask;

  constructor(mask: CredentialMask) {
    this.mask = mask;
  }

  /** Nothing held: an event that `mayHold` clears can skip `process` (and be reported to `passed`). */
  get idle(): boolean {
    return this.pending === undefined;
  }

  /** Events that skipped `process` went out as they were. */
  passed(bytes: Buffer): void {
    if (bytes.length > 0) this.previous = bytes;
  }

  /** The events to send in place of this one, oldest first (usually just it, unchanged). */
  process(unit: GuardedUnit<C>): GuardedUnit<C>[] {
    let bytes = this.mask.maskBytes(unit.bytes);
    let spans = deltaSpans(bytes);
    const out: GuardedUnit<C>[] = [];
    const pending = this.pending ?? this.shortBeginning(spans.first);
    if (pending !== undefined) {
      const first = spans.first;
      if (first === undefined) {
        this.giveBack(out); // nothing here continues it
      } else if (first.end > first.start) {
        const secret = this.mask.secrets[pending.secret]!;
        const matched = commonPrefix(bytes, first.start, first.end, secret, pending.length);
        if (pending.length + matched === secret.length) {
          bytes = splice(bytes, first.start, first.start + matched, MARKER); // the key is complete: the marker stands for it
          this.pending = undefined;
          spans = deltaSpans(bytes);
        } else if (matched === first.end - first.start) {
          pending.length += matched; // still only a piece of the key: cut it out and keep waiting
          bytes = splice(bytes, first.start, first.end, EMPTY);
          pending.template ??= { bytes, contentStart: first.start, contentEnd: first.start, context: unit.context };
          this.pending = pending;
          this.previous = bytes;
          return [{ bytes, context: unit.context }];
        } else if (pending.template !== undefined && sameBlock(pending.template, bytes, first.start)) {
          bytes = splice(bytes, first.start, first.start, secret.subarray(pending.sent, pending.length)); // not a key: the held bytes go back where they were
          this.pending = undefined;
          spans = deltaSpans(bytes);
        } else {
          this.giveBack(out);
        }
      }
    }
    const last = spans.last;
    if (this.pending === undefined && last !== undefined) {
      const held = this.mask.heldPrefix(bytes, last.start, last.end, true);
      if (held.length >= HOLD_FROM) {
        bytes = splice(bytes, last.end - held.length, last.end, EMPTY);
        this.pending = {
          secret: held.secret,
          length: held.length,
          sent: 0,
          template: { bytes, contentStart: last.start, contentEnd: last.end - held.length, context: unit.context },
        };
      }
    }
    this.previous = bytes;
    out.push(bytes === unit.bytes ? unit : { bytes, context: unit.context });
    return out;
  }

  /**
   * The previous event's last delta ended with a key's first one or two characters (sent: too short
   * to hold) and this event's first delta is not empty: what it continues is looked at as held.
   */
  private shortBeginning(first: StringSpan | undefined): Pending<C> | undefined {
    if (first === undefined || first.end === first.start || this.previous === undefined) return undefined;
    const last = deltaSpans(this.previous).last;
    if (last === undefined) return undefined;
    const held = this.mask.heldPrefix(this.previous, last.start, last.end, true);
    if (held.length === 0 || held.length >= HOLD_FROM) return undefined;
    return { secret: held.secret, length: held.length, sent: held.length, template: undefined };
  }

  /** At the stream's end: held bytes, if any, as a copy of their event. */
  flush(): GuardedUnit<C> | undefined {
    const out: GuardedUnit<C>[] = [];
    this.giveBack(out);
    return out[0];
  }

  /** The key did not follow: held bytes (if any; a noted beginning was sent already) go out as a copy of their event. */
  private giveBack(out: GuardedUnit<C>[]): void {
    const p = this.pending;
    this.pending = undefined;
    if (p?.template === undefined) return;
    const held = this.mask.secrets[p.secret]!.subarray(p.sent, p.length);
    out.push({ bytes: splice(p.template.bytes, p.template.contentStart, p.template.contentEnd, held), context: p.template.context });
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

/** The bytes before the template's delta string and before this one are the same: the same field of the same block. */
function sameBlock(template: { readonly bytes: Buffer; readonly contentStart: number }, bytes: Buffer, start: number): boolean {
  const length = Math.min(CONTEXT_BYTES, template.contentStart, start);
  if (length < CONTEXT_BYTES && template.contentStart !== start) return false;
  return template.bytes.compare(bytes, start - length, start, template.contentStart - length, template.contentStart) === 0;
}

interface StringSpan {
  readonly start: number;
  readonly end: number;
}

const NO_SPANS: { first: StringSpan | undefined; last: StringSpan | undefined } = { first: undefined, last: undefined };

/** The first and last string values of delta fields in `bytes`, in one walk over its quotes. */
function deltaSpans(bytes: Buffer): { first: StringSpan | undefined; last: StringSpan | undefined } {
  let first: StringSpan | undefined;
  let last: StringSpan | undefined;
  walkDeltaStrings(bytes, (span) => {
    first ??= span;
    last = span;
  });
  return first === undefined ? NO_SPANS : { first, last };
}

function allDeltaStrings(bytes: Buffer): StringSpan[] {
  const all: StringSpan[] = [];
  walkDeltaStrings(bytes, (span) => all.push(span));
  return all;
}

/**
 * Each string value of a delta field in `bytes`, in order. Quotes are found with string searches on
 * a latin-1 view (no native call per quote); a quote after an odd run of backslashes is inside a string.
 */
function walkDeltaStrings(bytes: Buffer, visit: (span: StringSpan) => void): void {
  const text = bytes.toString('latin1');
  let fieldIsDelta = false;
  let at = nextQuote(text, 0);
  while (at !== -1) {
    const close = nextQuote(text, at + 1);
    if (close === -1) return;
    const after = nextNonSpace(bytes, close + 1);
    if (bytes[after] === 0x3a) {
      fieldIsDelta = isDeltaField(bytes, at + 1, close); // a field name; its value may follow
    } else {
      if (fieldIsDelta && isValueOfPreviousField(bytes, at)) visit({ start: at + 1, end: close });
      fieldIsDelta = false;
    }
    at = nextQuote(text, close + 1);
  }
}

function nextQuote(text: string, from: number): number {
  let q = text.indexOf('"', from);
  while (q !== -1) {
    let slashes = 0;
    while (q - slashes - 1 >= from && text.charCodeAt(q - slashes - 1) === 0x5c) slashes++;
    if (slashes % 2 === 0) return q;
    q = text.indexOf('"', q + 1);
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
