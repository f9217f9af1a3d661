import { MAX_STREAM_EVENT_CHARS, streamEventTooLarge } from '../../framing/stream-event-limit.ts';

/** What the parser found in the text fed so far. */
export interface JsonArrayItems {
  /** Complete top-level elements, as JSON text, in order. */
  readonly elements: string[];
  /** The text is not a JSON array of objects; nothing more will be read. */
  readonly malformed: boolean;
}

/**
 * Splits a JSON array that arrives piece by piece (`[{...}\n,\r\n{...}\n]`, Gemini's
 * streamGenerateContent without alt=sse) into its top-level object elements as each one completes.
 * It only tracks nesting and strings; the elements themselves are parsed by the caller. Bytes may be
 * split anywhere, including inside a multi-byte character. An element longer than `maxChars`
 * throws a GatewayFailure (see stream-event-limit.ts).
 */
export class JsonArrayParser {
  private readonly decoder = new TextDecoder('utf-8');
  /** Text of the element being read (from its `{`), or '' between elements. */
  private element = '';
  private depth = 0;
  private inString = false;
  private escaped = false;
  private state: 'before' | 'between' | 'inside' | 'closed' | 'malformed' = 'before';
  private readonly maxChars: number;

  constructor(maxChars = MAX_STREAM_EVENT_CHARS) {
    this.maxChars = maxChars;
  }

  /** Has the closing `]` been read? */
  get closed(): boolean {
    return this.state === 'closed';
  }

  push(chunk: Uint8Array): JsonArrayItems {
    return this.feed(this.decoder.decode(chunk, { stream: true }));
  }

  end(): JsonArrayItems {
    return this.feed(this.decoder.decode());
  }

  private feed(text: string): JsonArrayItems {
    const elements: string[] = [];
    let start = this.state === 'inside' ? 0 : -1;
    for (let i = 0; i < text.length && this.state !== 'malformed'; i++) {
      const c = text[i];
      if (this.state === 'inside') {
        if (this.inString) {
          if (this.escaped) this.escaped = false;
          else if (c === '\\') this.escaped = true;
          else if (c === '"') this.inString = false;
        } else if (c === '"') this.inString = true;
        else if (c === '{' || c === '[') this.depth++;
        else if (c === '}' || c === ']') {
          this.depth--;
          if (this.depth === 0) {
            elements.push(this.element + text.slice(start, i + 1));
            this.element = '';
            this.state = 'between';
          }
        }
        continue;
      }
      if (c === ' ' || c === '\n' || c === '\r' || c === '\t') continue;
      if (this.state === 'before') this.state = c === '[' ? 'between' : 'malformed';
      else if (this.state === 'between' && c === '{') {
        this.state = 'inside';
        this.depth = 1;
        start = i;
      } else if (this.state === 'between' && (c === ',' || c === ']')) {
        if (c === ']') this.state = 'closed';
      } else this.state = 'malformed';
    }
    if (this.state === 'inside') this.element += text.slice(Math.max(start, 0));
    if (this.element.length > this.maxChars) throw streamEventTooLarge('element');
    return { elements, malformed: this.state === 'malformed' };
  }
}
