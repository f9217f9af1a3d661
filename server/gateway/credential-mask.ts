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

  constructor(values: Iterable<string>) {
    const unique = [...new Set([...values].filter((v) => v.length >= MIN_SECRET_LENGTH))];
    unique.sort((a, b) => b.length - a.length); // the longest first: a token that contains another is masked whole
    this.texts = unique;
    this.secrets = unique.map((v) => Buffer.from(v, 'utf8'));
    this.jsonPlain = this.secrets.map((b) => b.every((c) => c >= 0x20 && c < 0x7f && c !== 0x22 && c !== 0x5c));
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
