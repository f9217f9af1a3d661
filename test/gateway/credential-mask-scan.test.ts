// CredentialMask.mayHold scans with one expression that carries, for each needle, what must follow
// it for the needle's check to be worth asking. It must still clear exactly what checking every
// needle at every offset clears: compared here, on real upstream streams with keys, pieces of keys
// and look-alikes put into their delta strings and elsewhere.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CredentialMask } from '../../server/gateway/credential-mask.ts';

const STREAMS = new URL('../fixtures/real/openai/streams/', import.meta.url);
const fixtures = readdirSync(STREAMS)
  .slice(0, 6)
  .map((name) => readFileSync(new URL(name, STREAMS), 'latin1'));

interface Needle {
  readonly bytes: Buffer;
  holds(bytes: Buffer, at: number): boolean;
}

/** Every needle checked at every offset it occurs at: what the scan must agree with. */
function reference(mask: CredentialMask, bytes: Buffer): boolean {
  const needles = (mask as unknown as { needles: readonly Needle[] }).needles;
  for (const needle of needles)
    for (let at = bytes.indexOf(needle.bytes); at !== -1; at = bytes.indexOf(needle.bytes, at + 1)) if (needle.holds(bytes, at)) return true;
  return false;
}

const SECRETS = ['sk-proj-7fQ2mZx9Lw4Kp1Rt', 'bench-upstream-key', 'ab"c\\defghij', 'gpt-5-secret-token'];

/** A small deterministic generator, so a failure names a reproducible case. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

/** What goes into a stream: a key, its beginning, its end, a piece of it, a quote after a beginning, a near miss. */
function insertion(secret: string, next: () => number): string {
  const cut = 1 + Math.floor(next() * (secret.length - 1));
  switch (Math.floor(next() * 6)) {
    case 0:
      return secret;
    case 1:
      return secret.slice(0, cut);
    case 2:
      return secret.slice(cut);
    case 3:
      return secret.slice(Math.floor(cut / 2), cut);
    case 4:
      return `${secret.slice(0, cut)}"`;
    default:
      return `${secret.slice(0, cut)}X${secret.slice(cut + 1)}`;
  }
}

describe('CredentialMask.mayHold', () => {
  for (const secrets of [[SECRETS[0]!], [SECRETS[1]!], SECRETS]) {
    it(`agrees with every needle checked everywhere (${secrets.length} secret(s))`, () => {
      const mask = new CredentialMask(secrets);
      const next = random(secrets.length * 7919);
      let holding = 0;
      for (const text of fixtures) {
        expect(mask.mayHold(Buffer.from(text, 'latin1'))).toBe(reference(mask, Buffer.from(text, 'latin1')));
        for (let round = 0; round < 60; round++) {
          // Into a delta string (right after `"content":"` or inside one), or anywhere.
          const starts = [...text.matchAll(/"content":"/g)].map((m) => m.index + m[0].length);
          const at =
            next() < 0.7 && starts.length > 0 ? starts[Math.floor(next() * starts.length)]! + Math.floor(next() * 3) : Math.floor(next() * text.length);
          const secret = secrets[Math.floor(next() * secrets.length)]!;
          const bytes = Buffer.from(text.slice(0, at) + insertion(secret, next) + text.slice(at), 'latin1');
          const expected = reference(mask, bytes);
          if (expected) holding++;
          expect(mask.mayHold(bytes)).toBe(expected);
        }
      }
      expect(holding).toBeGreaterThan(20); // the cases reach the careful path, not only the clean one
    });
  }

  it('passes over a text that starts like a key but does not go on as one (a model name)', () => {
    const mask = new CredentialMask(['bench-upstream-key']);
    expect(mask.mayHold(Buffer.from('data: {"model":"bench-model","choices":[{"delta":{"content":"hi"}}]}\n\n'))).toBe(false);
    expect(mask.mayHold(Buffer.from('data: {"choices":[{"delta":{"content":"ben"}}]}\n\n'))).toBe(true);
    expect(mask.mayHold(Buffer.from('data: {"choices":[{"delta":{"content":"bench-ups"}}]}\n\n'))).toBe(true);
    expect(mask.mayHold(Buffer.from('data: {"choices":[{"delta":{"content":"nch-upstream-key and more"}}]}\n\n'))).toBe(true);
    expect(mask.mayHold(Buffer.from('error: bench-upstream-key'))).toBe(true);
  });

  it('heldTextPrefix: the longest proper beginning of a secret that the text ends with', () => {
    const mask = new CredentialMask(SECRETS);
    const reference = (text: string) => {
      let best = 0;
      for (const secret of SECRETS) for (let j = 1; j < secret.length && j <= text.length; j++) if (text.endsWith(secret.slice(0, j)) && j > best) best = j;
      return best;
    };
    const next = random(42);
    for (let round = 0; round < 3000; round++) {
      const secret = SECRETS[Math.floor(next() * SECRETS.length)]!;
      const base = ['', 'x', 'The quick brown fox ', 'sksk', 'bbbench', 'ab"ab"'][Math.floor(next() * 6)]!;
      const text = base + insertion(secret, next).slice(0, Math.floor(next() * secret.length));
      expect(mask.heldTextPrefix(text)).toBe(reference(text));
    }
    expect(mask.heldTextPrefix('... sk-proj-7f')).toBe('sk-proj-7f'.length);
    expect(mask.heldTextPrefix('sk-proj-7fQ2mZx9Lw4Kp1Rt')).toBe(0); // the whole key is masked, not held
  });
});
