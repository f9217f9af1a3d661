// A validating walk over JSON bytes that allocates nothing: what a caller needs from a few members
// of a large document (a same-protocol answer's usage) without JSON.parse building all of it.
// It accepts exactly the documents JSON.parse accepts (RFC 8259's grammar: bytes at or above 0x80
// only inside strings, where a UTF-8 decode can only turn them into other characters), so a walk
// that reaches the end has read a document the parse would have read the same way. Anything it
// cannot vouch for throws NotSure; a caller then falls back to the parse.

/** The walk cannot say what JSON.parse would: the document is invalid, or uses what the caller does not read. */
export class NotSure extends Error {}

const NOT_SURE = new NotSure('not sure');

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;

/** Bytes that may follow a backslash in a JSON string (besides `u`). */
const SIMPLE_ESCAPES = new Set([QUOTE, BACKSLASH, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]);

function isDigit(byte: number): boolean {
  return byte >= ZERO && byte <= NINE;
}

function isHex(byte: number): boolean {
  return isDigit(byte) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66);
}

export class JsonCursor {
  /** The next byte to read. */
  pos = 0;
  /** The last string read: its bytes between the quotes, and whether it held an escape. */
  stringStart = 0;
  stringEnd = 0;
  stringEscaped = false;

  readonly bytes: Buffer;
  /** For reading four bytes at once in long strings; made on the first one. */
  private view: DataView | undefined;

  constructor(bytes: Buffer) {
    this.bytes = bytes;
  }

  fail(): never {
    throw NOT_SURE;
  }

  skipSpace(): void {
    const { bytes } = this;
    let pos = this.pos;
    while (pos < bytes.length) {
      const b = bytes[pos]!;
      if (b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09) break;
      pos++;
    }
    this.pos = pos;
  }

  /** The byte at the cursor after whitespace, or -1 at the end. */
  peek(): number {
    this.skipSpace();
    return this.pos < this.bytes.length ? this.bytes[this.pos]! : -1;
  }

  /** After the document's one value, only whitespace may follow. */
  end(): void {
    if (this.peek() !== -1) this.fail();
  }

  /** At an object's `{`: steps in. Then `member` reads its members one by one. */
  openObject(): void {
    if (this.peek() !== OPEN_BRACE) this.fail();
    this.pos++;
  }

  /**
   * The object's next member: true with its key read (`stringStart`..`stringEnd`) and the cursor
   * at its value, or false past the closing brace. `first` is true for the first call after `openObject`.
   */
  member(first: boolean): boolean {
    let b = this.peek();
    if (b === CLOSE_BRACE) {
      this.pos++;
      return false;
    }
    if (!first) {
      if (b !== COMMA) this.fail();
      this.pos++;
      b = this.peek();
    }
    if (b !== QUOTE) this.fail();
    this.string();
    if (this.peek() !== COLON) this.fail();
    this.pos++;
    this.skipSpace();
    return true;
  }

  /** At an array's `[`: steps in. Then `element` steps from element to element. */
  openArray(): void {
    if (this.peek() !== OPEN_BRACKET) this.fail();
    this.pos++;
  }

  /** True with the cursor at the array's next element, or false past the closing bracket. */
  element(first: boolean): boolean {
    const b = this.peek();
    if (b === CLOSE_BRACKET) {
      this.pos++;
      return false;
    }
    if (!first) {
      if (b !== COMMA) this.fail();
      this.pos++;
      this.skipSpace();
    }
    return true;
  }

  /** The last string read is exactly `name` (an escaped one is never claimed: its decoded form is unknown here). */
  stringIs(name: string): boolean {
    if (this.stringEscaped) this.fail();
    const { bytes, stringStart } = this;
    if (this.stringEnd - stringStart !== name.length) return false;
    for (let i = 0; i < name.length; i++) if (bytes[stringStart + i] !== name.charCodeAt(i)) return false;
    return true;
  }

  /** At a `"`: reads the string, checking its escapes and that it holds no raw control character. */
  string(): void {
    const { bytes } = this;
    let pos = this.pos + 1;
    this.stringStart = pos;
    let escaped = false;
    for (;;) {
      if (pos - this.stringStart >= 16) pos = this.plainRun(pos); // a long string (a message)
      if (pos >= bytes.length) this.fail();
      const b = bytes[pos]!;
      if (b === QUOTE) break;
      if (b < 0x20) this.fail();
      if (b === BACKSLASH) {
        escaped = true;
        const next = bytes[pos + 1] ?? -1;
        if (next === 0x75) {
          for (let i = 2; i < 6; i++) if (!isHex(bytes[pos + i] ?? -1)) this.fail();
          pos += 6;
        } else if (SIMPLE_ESCAPES.has(next)) pos += 2;
        else this.fail();
        continue;
      }
      pos++;
    }
    this.stringEnd = pos;
    this.stringEscaped = escaped;
    this.pos = pos + 1;
  }

  /**
   * Where the run of string bytes from `pos` that are neither a quote, a backslash nor a control
   * byte ends, four bytes at a time (at most three short: the byte loop takes those).
   */
  private plainRun(from: number): number {
    const { bytes } = this;
    this.view ??= new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const view = this.view;
    const last4 = bytes.length - 4;
    let pos = from;
    while (pos <= last4) {
      const v = view.getUint32(pos, true);
      const quote = v ^ 0x22222222;
      const slash = v ^ 0x5c5c5c5c;
      // Per byte: below 0x20, or equal to '"' or '\\' (the classic has-less and has-zero word tests).
      if ((((v - 0x20202020) & ~v) | ((quote - 0x01010101) & ~quote) | ((slash - 0x01010101) & ~slash)) & 0x80808080) break;
      pos += 4;
    }
    return pos;
  }

  /**
   * At a number: checks its grammar. Returns its value when it is a plain non-negative integer
   * that a double holds exactly (what token counts are), otherwise NaN (the number is still valid).
   */
  number(): number {
    const { bytes } = this;
    let pos = this.pos;
    let plain = true;
    if (bytes[pos] === MINUS) {
      plain = false;
      pos++;
    }
    const digits = pos;
    if (bytes[pos] === ZERO) pos++;
    else if (isDigit(bytes[pos] ?? -1)) while (isDigit(bytes[pos] ?? -1)) pos++;
    else this.fail();
    const intEnd = pos;
    if (bytes[pos] === DOT) {
      plain = false;
      pos++;
      if (!isDigit(bytes[pos] ?? -1)) this.fail();
      while (isDigit(bytes[pos] ?? -1)) pos++;
    }
    if (bytes[pos] === 0x65 || bytes[pos] === 0x45) {
      plain = false;
      pos++;
      if (bytes[pos] === 0x2b || bytes[pos] === MINUS) pos++;
      if (!isDigit(bytes[pos] ?? -1)) this.fail();
      while (isDigit(bytes[pos] ?? -1)) pos++;
    }
    this.pos = pos;
    if (!plain || intEnd - digits > 15) return Number.NaN;
    let value = 0;
    for (let i = digits; i < intEnd; i++) value = value * 10 + (bytes[i]! - ZERO);
    return value;
  }

  /** At `true`, `false` or `null`: reads it. */
  private literal(word: string): void {
    const { bytes, pos } = this;
    for (let i = 0; i < word.length; i++) if (bytes[pos + i] !== word.charCodeAt(i)) this.fail();
    this.pos = pos + word.length;
  }

  /** At `null`: true (and reads it), otherwise false with the cursor unmoved. */
  null(): boolean {
    if (this.peek() !== 0x6e) return false;
    this.literal('null');
    return true;
  }

  /** Reads and checks whatever value is at the cursor. Deep nesting ends in a RangeError, which callers treat like NotSure. */
  skip(): void {
    const b = this.peek();
    if (b === QUOTE) this.string();
    else if (b === OPEN_BRACE) {
      this.pos++;
      for (let first = true; this.member(first); first = false) this.skip();
    } else if (b === OPEN_BRACKET) {
      this.pos++;
      for (let first = true; this.element(first); first = false) this.skip();
    } else if (b === 0x74) this.literal('true');
    else if (b === 0x66) this.literal('false');
    else if (b === 0x6e) this.literal('null');
    else this.number();
  }
}
