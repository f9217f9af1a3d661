// The credential mask's check of a whole answer kept in pieces (mayHoldPieces) must never clear
// what the check of the joined answer (mayHold) would send the careful way, wherever the cuts
// fall: the client gets the same bytes either way. On real embeddings answers made large, with
// keys and cut keys' edges put in them, cut at every byte around what was put in, into one-byte
// pieces, and at random.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CredentialMask } from '../../server/gateway/credential-mask.ts';
import { mayHoldPieces } from '../../server/gateway/credential-mask-pieces.ts';
import { maskSplitDeltas } from '../../server/gateway/delta-split-guard.ts';

const FIXTURES = new URL('../fixtures/real-embeddings/', import.meta.url);
const KEYS = ['sk-proj-7fQ2abcdefghijklmnop', 'bench-upstream-key', 'AKIAIOSFODNN7EXAMPLE', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'];
const mask = new CredentialMask(KEYS);

/** The OpenAI answer of the API reference with 16 vectors of 1024 numbers: about 330 KB, as the bench's. */
function largeOpenAiAnswer(): string {
  const answer = JSON.parse(readFileSync(new URL('openai/response-api-ref.json', FIXTURES), 'utf8')) as { data: { embedding: number[] }[] };
  const item = answer.data[0]!;
  answer.data = Array.from({ length: 16 }, (_, index) => ({
    ...item,
    index,
    embedding: Array.from({ length: 1024 }, (_, i) => Math.sin(index * 1024 + i) / 7),
  }));
  return JSON.stringify(answer, null, 2);
}

/** Cohere's v2 answer of the API reference, its vectors four times over (past the 64 KB where the piecewise path begins). */
function largeCohereAnswer(): string {
  const answer = JSON.parse(readFileSync(new URL('cohere/response-api-ref-v2.json', FIXTURES), 'utf8')) as { embeddings: { float: number[][] } };
  answer.embeddings.float = [1, 2, 3, 4].flatMap(() => answer.embeddings.float);
  return JSON.stringify(answer);
}

/** What the client is sent: the bytes as they are, or the careful way (joined, masked, split keys in delta strings masked). */
function sent(careful: boolean, joined: Buffer): Buffer {
  return careful ? maskSplitDeltas(mask, mask.maskBytes(joined)) : joined;
}

function cutAt(bytes: Buffer, cuts: readonly number[]): Buffer[] {
  const points = [0, ...[...cuts].sort((a, b) => a - b), bytes.length];
  return points.slice(1).map((end, i) => bytes.subarray(points[i], end));
}

/** How often the whole check said careful: the cases that matter are exercised. */
const seen = { careful: 0 };

function expectSame(bytes: Buffer, pieces: readonly Buffer[], what: string): void {
  const whole = mask.mayHold(bytes);
  const inPieces = mayHoldPieces(mask, pieces);
  if (whole) seen.careful++;
  if (whole && !inPieces) throw new Error(`${what}: cleared in pieces, not whole`);
  expect(sent(inPieces, Buffer.concat(pieces)).equals(sent(whole, bytes)), what).toBe(true);
}

/** Members put in an answer: whole keys, and key edges in delta strings (as an answer with text content would carry them). */
const PUT_IN = [
  (key: string) => `"note":"${key}"`,
  (key: string) => `"note":"x ${key} y"`,
  (key: string) => `"text":"say ${key.slice(0, 5)}"},{"type":"text","text":"${key.slice(5)} more"`,
  (key: string) => `"content": "${key.slice(0, 3)}"`,
  (key: string) => `"content":"${key.slice(1)}"`,
  (key: string) => `"content":"${key.slice(2, 6)}"`,
  (key: string) => `"text":"\\"${key.slice(0, 4)}"`,
];

/** The answer with an object of `members` as the first element of the first array at or after `near` (JSON still). */
function withMembers(text: string, members: string, near: number): { bytes: Buffer; at: number } {
  const open = text.indexOf('[', near);
  const before = text.slice(0, open + 1);
  return { bytes: Buffer.from(`${before}{${members}},${text.slice(open + 1)}`), at: Buffer.byteLength(before) };
}

describe('mayHoldPieces', () => {
  const answers = [
    { name: 'openai', text: largeOpenAiAnswer() },
    { name: 'cohere', text: largeCohereAnswer() },
  ];

  it('clears a clean large answer whatever its cuts (no copy joined for the usual answer)', () => {
    for (const { name, text } of answers) {
      const bytes = Buffer.from(text);
      expect(bytes.length).toBeGreaterThan(64 * 1024);
      expect(mask.mayHold(bytes)).toBe(false);
      for (const size of [65536, 16384, 4093, 1000]) {
        const cuts = Array.from({ length: Math.floor((bytes.length - 1) / size) }, (_, i) => (i + 1) * size);
        expect(mayHoldPieces(mask, cutAt(bytes, cuts)), `${name} in pieces of ${size}`).toBe(false);
      }
    }
  });

  it('never clears a key or a cut key edge the whole check catches, cut at every byte around it', () => {
    for (const { name, text } of answers) {
      for (const key of KEYS) {
        for (const [p, put] of PUT_IN.entries()) {
          const members = put(key);
          const { bytes, at } = withMembers(text, members, text.length >>> 1);
          JSON.parse(bytes.toString());
          for (let cut = at - 4; cut <= at + Buffer.byteLength(members) + 8; cut++) {
            const what = `${name}, key ${key}, form ${p}, cut at ${cut - at}`;
            expectSame(
              bytes,
              cutAt(
                bytes,
                [40_000, cut, 200_000].filter((c) => c < bytes.length),
              ),
              what,
            );
            expectSame(bytes, cutAt(bytes, [cut, cut + 1, cut + 2]), `${what}, one-byte pieces`);
          }
        }
      }
    }
    expect(seen.careful).toBeGreaterThan(1000);
  });

  it('agrees with the whole check on random cuts of answers with keys put in at random', () => {
    let seed = 19;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let round = 0; round < 300; round++) {
      const { text } = answers[round % answers.length]!;
      const put = PUT_IN[random(PUT_IN.length)]!;
      const { bytes } = withMembers(text, put(KEYS[random(KEYS.length)]!), random(text.length - 2000));
      const cuts = Array.from({ length: 1 + random(40) }, () => 1 + random(bytes.length - 1));
      expectSame(bytes, cutAt(bytes, cuts), `round ${round}`);
    }
  });

  it('an answer in one piece, or small, is checked as mayHold checks it', () => {
    const small = Buffer.from(`{"data":[],"note":"${KEYS[0]}"}`);
    expect(mayHoldPieces(mask, [small])).toBe(true);
    expect(mayHoldPieces(mask, cutAt(small, [10, 20]))).toBe(true);
    expect(mayHoldPieces(mask, [Buffer.from('{"data":[]}')])).toBe(false);
    expect(mayHoldPieces(mask, [])).toBe(false);
  });
});
