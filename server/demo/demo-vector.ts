import { createHash } from 'node:crypto';

/** Dimensions of a demo vector when the request names none. */
export const DEMO_DIMENSIONS = 8;

/**
 * A deterministic unit vector for a text (SHA-256 of the text, stretched to the dimensions asked
 * for): the same text always embeds the same, so demo and test answers can be checked.
 */
export function demoVector(text: string, dimensions = DEMO_DIMENSIONS): number[] {
  const out = new Array<number>(dimensions);
  let digest = createHash('sha256').update(text).digest();
  for (let i = 0; i < dimensions; i++) {
    if (i > 0 && i % 16 === 0) digest = createHash('sha256').update(digest).digest();
    const v = (digest.readUInt16LE((i % 16) * 2) / 65535) * 2 - 1;
    out[i] = v;
  }
  const norm = Math.hypot(...out) || 1;
  // float32 values, as providers send: they survive a base64 float32 round trip exactly.
  return out.map((v) => Math.fround(v / norm));
}

/** Tokens of a demo text: its words, at least one. */
export function demoTokens(text: string): number {
  return Math.max(1, text.split(/\s+/).filter((w) => w !== '').length);
}
