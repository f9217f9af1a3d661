import type { ProviderRuntime } from '../config/runtime-config.ts';

/** What replaces an operator credential in anything sent to a client. */
export const CREDENTIAL_MARKER = '[redacted]';
const MARKER_BYTES = Buffer.from(CREDENTIAL_MARKER);

/**
 * Shorter values cannot be told apart from ordinary text (masking them would rewrite answers);
 * every real provider key is far longer.
 */
export const MIN_SECRET_LENGTH = 8;

/** Operator-configured provider headers and query parameters whose names say they carry a credential. */
const CREDENTIAL_NAME = /auth|key|token|secret|signature|password|cookie/i;

/**
 * The credentials one provider's requests carry (API key or bearer token, AWS access key id,
 * secret and session token, credential-like operator headers), and the matching on bytes and text
 * that keeps them from clients. Built once per provider (`credentialMaskFor`), never per request.
 */
export class CredentialMask {
  readonly secrets: readonly Buffer[];
  readonly texts: readonly string[];
  /**
   * Per secret: all its bytes are printable ASCII other than `"` and `\`, so inside a JSON string it
   * appears as itself and a piece of it can be cut out of a JSON string without breaking it.
   */
  readonly jsonPlain: readonly boolean[];
  /** Every secret is ASCII: a JS string can be scanned without a latin-1 view of its bytes. */
  readonly isAscii: boolean;

  /** Latin-1 views of the secrets (one character a byte), to search a chunk's latin-1 string. */
  private readonly latin1: readonly string[];
  /** One native scan for a cut key's edges (see `mayHold`). */
  private readonly careful: RegExp | undefined;
  /** Substrings without which neither a secret nor `careful` can match. */
  private readonly hints: RegExp | undefined;

  constructor(values: Iterable<string>) {
    const unique = [...new Set([...values].filter((v) => v.length >= MIN_SECRET_LENGTH))];
    unique.sort((a, b) => b.length - a.length); // the longest first: a token that contains another is masked whole
    this.texts = unique;
    this.secrets = unique.map((v) => Buffer.from(v, 'utf8'));
    this.jsonPlain = this.secrets.map((b) => b.every((c) => c >= 0x20 && c < 0x7f && c !== 0x22 && c !== 0x5c));
    this.latin1 = this.secrets.map((b) => b.toString('latin1'));
    this.isAscii = this.secrets.every((b) => b.every((c) => c < 0x80));
    this.careful = carefulPattern(this.latin1, this.jsonPlain);
    const follows = this.latin1.filter((_, i) => this.jsonPlain[i]).flatMap((secret) => Array.from({ length: HOLD_FROM - 1 }, (_, i) => `"${secret[i + 1]!}`));
    const hints = [...new Set([...this.latin1.map((secret) => secret.slice(0, HOLD_FROM)), ...follows])];
    this.hints = hints.length === 0 ? undefined : new RegExp(hints.map(escapeRegExp).join('|'));
  }

  /**
   * Whether a stream chunk or a body (as a latin-1 string: one character a byte) needs the careful
   * path: it holds a whole secret, a delta string in it ends with the first HOLD_FROM or more
   * characters of one, or a delta string in it starts with what follows a secret's first one or two
   * characters. One native regular-expression scan; false for nearly every chunk, which then goes
   * out untouched.
   */
  mayHold(chunk: string): boolean {
    // Every match needs one of a few short substrings (a secret's first characters, a string
    // starting `"k`): one scan for those spares nearly every chunk the long searches (which build
    // skip tables on every call) and the full expression.
    if (this.hints === undefined || !this.hints.test(chunk)) return false;
    for (const secret of this.latin1) if (chunk.includes(secret)) return true;
    return this.careful?.test(chunk) === true;
  }

  /** False when `chunk` (latin-1) cannot hold a secret: one scan for the secrets' first characters. */
  mayContain(chunk: string): boolean {
    return this.hints?.test(chunk) === true;
  }

  get isEmpty(): boolean {
    return this.secrets.length === 0;
  }

  /** The two masks' secrets together (a request that tried lanes on two providers). */
  union(other: CredentialMask): CredentialMask {
    if (other === this || other.isEmpty) return this;
    if (this.isEmpty) return other;
    let byOther = unions.get(this);
    if (byOther === undefined) unions.set(this, (byOther = new WeakMap()));
    let both = byOther.get(other);
    if (both === undefined) byOther.set(other, (both = new CredentialMask([...this.texts, ...other.texts])));
    return both;
  }

  maskText(text: string): string {
    let out = text;
    for (const secret of this.texts) if (out.includes(secret)) out = out.split(secret).join(CREDENTIAL_MARKER);
    return out;
  }

  /** The bytes themselves when no secret is in them (one native search per secret), else a masked copy. */
  maskBytes(bytes: Buffer): Buffer {
    let out = bytes;
    for (const secret of this.secrets) {
      let at = out.indexOf(secret);
      if (at === -1) continue;
      const parts: Buffer[] = [];
      let from = 0;
      while (at !== -1) {
        parts.push(out.subarray(from, at), MARKER_BYTES);
        from = at + secret.length;
        at = out.indexOf(secret, from);
      }
      parts.push(out.subarray(from));
      out = Buffer.concat(parts);
    }
    return out;
  }

  /**
   * The longest tail of `bytes[start, end)` that is the beginning of a secret (a proper prefix),
   * with that secret's index; 0 when none. What may have to be held back until the next piece
   * shows whether the secret follows. `jsonOnly`: only secrets that can be cut out of JSON strings.
   */
  heldPrefix(bytes: Uint8Array, start: number, end: number, jsonOnly = false): { length: number; secret: number } {
    let best = 0;
    let which = -1;
    for (let s = 0; s < this.secrets.length; s++) {
      if (jsonOnly && !this.jsonPlain[s]) continue;
      const secret = this.secrets[s]!;
      const first = secret[0]!;
      for (let j = Math.min(secret.length - 1, end - start); j > best; j--) {
        if (bytes[end - j] !== first) continue;
        let k = 1;
        while (k < j && bytes[end - j + k] === secret[k]) k++;
        if (k === j) {
          best = j;
          which = s;
          break;
        }
      }
    }
    return { length: best, secret: which };
  }

  /** `heldPrefix` on text: how many characters at the end of `text` could be the beginning of a secret. */
  heldTextPrefix(text: string): number {
    let best = 0;
    for (const secret of this.texts) {
      for (let j = Math.min(secret.length - 1, text.length); j > best; j--) {
        if (text.charCodeAt(text.length - j) === secret.charCodeAt(0) && text.endsWith(secret.slice(0, j))) {
          best = j;
          break;
        }
      }
    }
    return best;
  }
}

/**
 * JSON fields whose string values a client concatenates across stream events (text, reasoning and
 * tool-argument deltas of the six protocols). A key cut in two over such values is a key again in
 * the client's hands; any other field repeats or stands alone.
 */
export const DELTA_FIELD_NAMES = ['text', 'content', 'delta', 'thinking', 'partial_json', 'arguments', 'refusal', 'input', 'reasoning_content', 'reasoning'];

/**
 * A delta that ends with this many characters of a key's beginning or more is held back (see
 * DeltaSplitGuard); a shorter ending ("s", "sk") goes out: those characters are the keys' public
 * format (`sk-`, `AIza`), and holding them would rewrite a fifth of all English deltas. What
 * follows them is masked all the same, so a client sees at most `sk[redacted]`.
 */
export const HOLD_FROM = 3;

function carefulPattern(secrets: readonly string[], jsonPlain: readonly boolean[]): RegExp | undefined {
  const plain = secrets.filter((_, i) => jsonPlain[i]);
  if (plain.length === 0) return undefined;
  // A delta string ending with a held beginning: `sk-`, `sk-p`, ... (the whole key is found by `includes`).
  const endings = plain.map((s) => prefixPattern(s.slice(0, -1), HOLD_FROM));
  // A delta string starting with what follows a short beginning: all of it, or a piece of it ending the string.
  const follows = plain.flatMap((s) =>
    Array.from({ length: HOLD_FROM - 1 }, (_, i) => s.slice(i + 1)).flatMap((rest) => [escapeRegExp(rest), `${prefixPattern(rest.slice(0, -1), 1)}"`]),
  );
  return new RegExp(`"(?:${DELTA_FIELD_NAMES.join('|')})"\\s*:\\s*"(?:${follows.join('|')}|(?:[^"\\\\]|\\\\.)*?(?:${endings.join('|')})")`);
}

/** `abcd`, 2 → `ab(?:c(?:d)?)?`: any prefix of `text` at least `min` characters long. */
function prefixPattern(text: string, min: number): string {
  const chars = [...text].map(escapeRegExp);
  let pattern = '';
  for (let i = chars.length - 1; i >= min; i--) pattern = `(?:${chars[i]}${pattern})?`;
  return chars.slice(0, min).join('') + pattern;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

const unions = new WeakMap<CredentialMask, WeakMap<CredentialMask, CredentialMask>>();

export const NO_CREDENTIALS = new CredentialMask([]);

const masks = new WeakMap<ProviderRuntime, CredentialMask>();

/** The provider's mask, built on first use and kept for the provider's lifetime. */
export function credentialMaskFor(provider: ProviderRuntime): CredentialMask {
  let mask = masks.get(provider);
  if (mask === undefined) masks.set(provider, (mask = new CredentialMask(credentialsOf(provider))));
  return mask;
}

function credentialsOf(provider: ProviderRuntime): string[] {
  const values: string[] = [];
  if (provider.apiKey !== undefined) values.push(provider.apiKey);
  const aws = provider.aws?.credentials;
  if (aws !== undefined) {
    values.push(aws.accessKeyId, aws.secretAccessKey);
    if (aws.sessionToken !== undefined) values.push(aws.sessionToken);
  }
  for (const [name, value] of [...Object.entries(provider.headers), ...Object.entries(provider.query)]) {
    if (!CREDENTIAL_NAME.test(name)) continue;
    values.push(value);
    const token = /^(?:bearer|basic|token)\s+(.+)$/i.exec(value)?.[1]; // the credential without its scheme
    if (token !== undefined) values.push(token);
  }
  return values;
}
