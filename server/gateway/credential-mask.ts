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

  /** The short substrings every key or cut key's edge holds (see `mayHold`), each with what a hit on it must be checked for. */
  readonly needles: readonly Needle[];
  /** Bytes from a hit on a needle that `Needle.ahead` may read: the longest secret and one more. */
  readonly reach: number;
  /** The needles as one expression, for a latin-1 view of a small chunk: each with what its check needs to follow it (see `Needle.pattern`). */
  private readonly hints: RegExp | undefined;

  constructor(values: Iterable<string>) {
    const unique = [...new Set([...values].filter((v) => v.length >= MIN_SECRET_LENGTH))];
    unique.sort((a, b) => b.length - a.length); // the longest first: a token that contains another is masked whole
    this.texts = unique;
    this.secrets = unique.map((v) => Buffer.from(v, 'utf8'));
    this.jsonPlain = this.secrets.map((b) => b.every((c) => c >= 0x20 && c < 0x7f && c !== 0x22 && c !== 0x5c));
    this.needles = needlesOf(this.secrets, this.jsonPlain);
    this.reach = this.secrets.reduce((most, secret) => Math.max(most, secret.length), 0) + 1;
    this.hints = this.needles.length === 0 ? undefined : new RegExp(this.needles.map((n) => n.pattern).join('|'), 'g');
  }

  /**
   * Whether a stream chunk or a body needs the careful path: it holds a whole secret, a delta
   * string in it ends with the first HOLD_FROM or more characters of one (`"content":"...sk-pro"`),
   * or a delta string in it starts with what follows a secret's first one or two characters
   * (`"content":"k-proj-7f..."`, or a piece of that ending the string): the edges of a key cut
   * across delta strings, which `DeltaSplitGuard` and `maskSplitDeltas` then look at exactly.
   * Each of those holds one of a few short needles (a secret's first three bytes, a quote and its
   * second or third byte); the needles are searched for and each hit is checked where it is, so
   * the usual chunk or body is cleared in one scan and goes out untouched.
   */
  mayHold(bytes: Buffer): boolean {
    const hints = this.hints;
    if (hints === undefined) return false;
    if (bytes.length >= NATIVE_SEARCH_FROM) {
      // A large body (embeddings): its latin-1 view would cost more than native searches on its bytes.
      for (const needle of this.needles) {
        for (let at = bytes.indexOf(needle.bytes); at !== -1; at = bytes.indexOf(needle.bytes, at + 1)) if (needle.holds(bytes, at)) return true;
      }
      return false;
    }
    // One scan of a latin-1 view (same offsets as the bytes) for all needles at once.
    const text = bytes.toString('latin1');
    hints.lastIndex = 0;
    for (let hit = hints.exec(text); hit !== null; hit = hints.exec(text)) {
      const at = hit.index;
      const needles = this.needles;
      for (let n = 0; n < needles.length; n++) if (startsWith(bytes, at, needles[n]!.bytes) && needles[n]!.holds(bytes, at)) return true;
      hints.lastIndex = at + 1; // hits may overlap
    }
    return false;
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
      // Where a proper prefix of the secret could start: at its first character, found natively
      // (usually nowhere in a delta's last characters), from the longest candidate down.
      const first = secret.charAt(0);
      for (
        let at = text.indexOf(first, text.length - Math.min(secret.length - 1, text.length));
        at !== -1 && text.length - at > best;
        at = text.indexOf(first, at + 1)
      ) {
        if (text.endsWith(secret.slice(0, text.length - at))) {
          best = text.length - at;
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

const QUOTE = 0x22;

/** Below this size a chunk is scanned as a latin-1 string with one expression; from it on, with native byte searches. */
export const NATIVE_SEARCH_FROM = 64 * 1024;

/** A short substring that a key or a cut key's edge holds, and the check of a hit on it. */
export interface Needle {
  readonly bytes: Buffer;
  /**
   * The needle and what must follow it for `holds` to be worth asking, as a latin-1 expression: the
   * rest of the secret, or a part of it and a quote. The same condition `holds` checks first, so a
   * text that merely shares the needle (a model name that starts like the key, in every event of a
   * stream) is passed over by the scan instead of stopping it once a hit.
   */
  readonly pattern: string;
  /** The hit at `at` is a whole secret or a cut key's edge in a delta string. */
  holds(bytes: Buffer, at: number): boolean;
  /**
   * The part of `holds` that reads forward only (at most `CredentialMask.reach` bytes from `at`):
   * the hit is a whole secret, or a key's edge that ends its string (`holds` then asks whether the
   * string is a delta, looking back). False: `holds` is false. For a body read in pieces
   * (`mayHoldPieces`), where what lies before the hit may be in an earlier piece.
   */
  ahead(bytes: Buffer, at: number): boolean;
}

/**
 * Per secret: its first HOLD_FROM bytes (the whole secret, or a delta string ending with its
 * beginning); for a secret that can be cut out of JSON strings, also a quote and its second and
 * third byte (a delta string starting with what follows a short beginning the client was sent: all
 * of it, or a piece of it that ends the string).
 */
function needlesOf(secrets: readonly Buffer[], jsonPlain: readonly boolean[]): Needle[] {
  const needles: Needle[] = [];
  secrets.forEach((secret, s) => {
    const plain = jsonPlain[s]!;
    needles.push({
      bytes: secret.subarray(0, HOLD_FROM),
      pattern: plain ? escapeRegExp(secret.toString('latin1', 0, HOLD_FROM)) + restOrQuote(secret, HOLD_FROM) : escapeRegExp(secret.toString('latin1')),
      holds(bytes, at) {
        const matched = commonLength(bytes, at, secret, 0);
        if (matched === secret.length) return true;
        return plain && bytes[at + matched] === QUOTE && isDeltaValue(bytes, openingQuote(bytes, at));
      },
      ahead(bytes, at) {
        const matched = commonLength(bytes, at, secret, 0);
        return matched === secret.length || (plain && bytes[at + matched] === QUOTE);
      },
    });
    if (!plain) return;
    for (let from = 1; from < HOLD_FROM; from++) {
      needles.push({
        bytes: Buffer.from([QUOTE, secret[from]!]),
        pattern: `"${escapeRegExp(secret.toString('latin1', from, from + 1))}${restOrQuote(secret, from + 1)}`,
        holds(bytes, at) {
          const matched = commonLength(bytes, at + 1, secret, from);
          return (from + matched === secret.length || bytes[at + 1 + matched] === QUOTE) && isDeltaValue(bytes, at);
        },
        ahead(bytes, at) {
          const matched = commonLength(bytes, at + 1, secret, from);
          return from + matched === secret.length || bytes[at + 1 + matched] === QUOTE;
        },
      });
    }
  });
  return needles;
}

/**
 * What may follow the first `from` bytes of a plain secret where `holds` can be true: a quote, or
 * its next byte and again a quote or more of it, up to its end (`(?:"|k(?:"|-(?:"|...)))`).
 */
function restOrQuote(secret: Buffer, from: number): string {
  let pattern = '';
  for (let i = secret.length - 1; i >= from; i--) pattern = `(?:"|${escapeRegExp(secret.toString('latin1', i, i + 1))}${pattern})`;
  return pattern;
}

function startsWith(bytes: Buffer, at: number, needle: Buffer): boolean {
  for (let k = 0; k < needle.length; k++) if (bytes[at + k] !== needle[k]) return false;
  return true;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

const BACKSLASH = 0x5c;
const COLON = 0x3a;
const DELTA_FIELDS = DELTA_FIELD_NAMES.map((name) => Buffer.from(name));

/** The unescaped quote that opens the string `at` is in (the nearest before it); -1 when there is none. */
function openingQuote(bytes: Buffer, at: number): number {
  // A plain loop: the quote is usually a few bytes back, nearer than a native call is cheap.
  for (let q = at - 1; q >= 0; q--) {
    if (bytes[q] !== QUOTE) continue;
    let slashes = 0;
    while (q - slashes - 1 >= 0 && bytes[q - slashes - 1] === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return q;
  }
  return -1;
}

/**
 * The quote at `open` opens the value of a delta field: `"content": "`. Whitespace is what a
 * regular expression's `\s` takes on one byte (JSON's four, vertical tab, form feed, no-break
 * space), so nothing a looser reading would call a delta string is passed over.
 */
function isDeltaValue(bytes: Buffer, open: number): boolean {
  if (open < 0) return false;
  let i = open - 1;
  while (i >= 0 && isSpace(bytes[i]!)) i--;
  if (bytes[i] !== COLON) return false;
  i--;
  while (i >= 0 && isSpace(bytes[i]!)) i--;
  if (bytes[i] !== QUOTE) return false;
  for (let n = 0; n < DELTA_FIELDS.length; n++) {
    const name = DELTA_FIELDS[n]!; // indexed: for-of allocated an iterator result per field here
    const start = i - name.length;
    if (start < 1 || bytes[start - 1] !== QUOTE) continue;
    let k = 0;
    while (k < name.length && bytes[start + k] === name[k]) k++;
    if (k === name.length) return true;
  }
  return false;
}

function isSpace(byte: number): boolean {
  return byte === 0x20 || (byte >= 0x09 && byte <= 0x0d) || byte === 0xa0;
}

/** How many bytes from `bytes[start]` on equal `secret` from `from` on. */
function commonLength(bytes: Buffer, start: number, secret: Buffer, from: number): number {
  let k = 0;
  while (from + k < secret.length && start + k < bytes.length && bytes[start + k] === secret[from + k]) k++;
  return k;
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
