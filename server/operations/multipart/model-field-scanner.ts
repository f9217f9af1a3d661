/** Text fields shorter than this, seen before `model`, are kept for pricing (`n`, `response_format`). */
const SMALL_FIELD_BYTES = 256;

/** Where the `model` part's value lies in the bytes read so far, and the small fields before it. */
export interface ModelField {
  /** The value's first byte and the byte after its last, in the scanner's bytes. */
  readonly start: number;
  readonly end: number;
  readonly value: string;
  readonly fields: ReadonlyMap<string, string>;
}

/**
 * Finds the `model` field of a multipart/form-data body as its bytes arrive, without decoding
 * anything else: part headers are read only to learn each part's name, and a file part's bytes are
 * only searched for the next delimiter. Every byte is kept as it came (the forward is byte for byte,
 * the model's value aside), so the scanner holds what arrived until the model part ends: the
 * caller bounds that by the request limit. Returns 'more' until it knows, 'absent' when the body
 * ended (its closing delimiter) without a `model` part.
 */
export class ModelFieldScanner {
  private bytes = Buffer.allocUnsafe(64 * 1024);
  private used = 0;
  /** Start of the delimiter line of the part being read (`--boundary`). */
  private partAt = -1;
  /** Where the search for the current part's closing delimiter resumes (no rescans of a large file). */
  private searchFrom = 0;
  private readonly fields = new Map<string, string>();
  private readonly dashBoundary: Buffer;
  private readonly delimiter: Buffer;

  constructor(boundary: string) {
    this.dashBoundary = Buffer.from(`--${boundary}`, 'latin1');
    this.delimiter = Buffer.from(`\r\n--${boundary}`, 'latin1');
  }

  /** The bytes read so far (through the model part when found). */
  get head(): Buffer {
    return this.bytes.subarray(0, this.used);
  }

  push(chunk: Buffer): ModelField | 'absent' | 'more' {
    this.append(chunk);
    return this.scan();
  }

  private append(chunk: Buffer): void {
    if (this.used + chunk.length > this.bytes.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.used + chunk.length));
      this.bytes.copy(grown, 0, 0, this.used);
      this.bytes = grown;
    }
    chunk.copy(this.bytes, this.used);
    this.used += chunk.length;
  }

  private scan(): ModelField | 'absent' | 'more' {
    const bytes = this.head;
    if (this.partAt < 0) {
      const first = bytes.indexOf(this.dashBoundary); // a preamble before it is allowed, and ignored
      if (first < 0) return 'more';
      this.partAt = first;
    }
    for (;;) {
      const afterDelimiter = this.partAt + this.dashBoundary.length;
      if (bytes.length < afterDelimiter + 2) return 'more';
      if (bytes[afterDelimiter] === 0x2d && bytes[afterDelimiter + 1] === 0x2d) return 'absent'; // `--boundary--`: the end
      const headersEnd = bytes.indexOf('\r\n\r\n', afterDelimiter, 'latin1');
      if (headersEnd < 0) return 'more';
      const dataStart = headersEnd + 4;
      const next = bytes.indexOf(this.delimiter, Math.max(dataStart, this.searchFrom));
      if (next < 0) {
        this.searchFrom = Math.max(dataStart, bytes.length - this.delimiter.length + 1);
        return 'more';
      }
      const { name, file } = partName(bytes.toString('latin1', afterDelimiter, headersEnd));
      if (name === 'model' && !file) return { start: dataStart, end: next, value: bytes.toString('utf8', dataStart, next), fields: this.fields };
      if (name !== undefined && !file && next - dataStart <= SMALL_FIELD_BYTES) this.fields.set(name, bytes.toString('utf8', dataStart, next));
      this.partAt = next + 2; // the delimiter line starts after its CRLF
      this.searchFrom = 0;
    }
  }
}

/** A part's field name and whether it is a file, from its Content-Disposition header. */
function partName(headers: string): { name: string | undefined; file: boolean } {
  const disposition = /^content-disposition:[^\r\n]*$/im.exec(headers)?.[0] ?? '';
  const name = /;\s*name="([^"]*)"/i.exec(disposition)?.[1] ?? /;\s*name=([^;\s]+)/i.exec(disposition)?.[1];
  return { name, file: /;\s*filename\*?=/i.test(disposition) };
}
