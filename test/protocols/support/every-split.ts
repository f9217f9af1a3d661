// The decoders must not care where the network cuts a stream: this checks every cut in two.
import { isDeepStrictEqual } from 'node:util';
import { expect } from 'vitest';
import type { StreamEvent } from '../../../server/ir/index.ts';
import { splitAt } from './chunking.ts';

/**
 * Expects `decode` to give `expected` for `bytes` split in two at every offset, naming the first
 * offset that does not. The strict pre-check keeps thousands of passing splits from each building
 * an assertion diff.
 */
export function expectSameAtEverySplit(
  decode: (chunks: Iterable<Uint8Array>) => StreamEvent[],
  bytes: Uint8Array,
  expected: readonly StreamEvent[],
  label = '',
): void {
  for (let offset = 0; offset <= bytes.length; offset++) {
    const events = decode(splitAt(bytes, offset));
    if (!isDeepStrictEqual(events, expected)) expect(events, `${label}split at byte ${offset}`).toEqual(expected);
  }
}
