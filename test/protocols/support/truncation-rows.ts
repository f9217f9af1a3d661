// What the one truncation suite (../stream-truncation.test.ts) needs to know of each protocol: where
// its streams become complete (a terminator's data line, Gemini's finishing chunk, Bedrock's
// messageStop frame), what its decoder adds on its own at a cut, and what the stream cut just
// before its terminator must give. One row a protocol.
import { expect } from 'vitest';
import type { StreamEvent } from '../../../server/ir/index.ts';
import type { ProtocolId } from '../../../server/protocols/registry.ts';
import { bytesToFrames, frameEnds } from '../bedrock/support/frames.ts';
import { payloads } from '../responses/support.ts';
import { readBytes, type ScenarioDir } from './fixtures.ts';

export const TRUNCATED = { kind: 'server', status: 502, code: 'upstream_stream_truncated' };

export interface TruncationRow {
  readonly files: readonly string[];
  /** The protocol's complete fixtures are enough to prove the point (asserted once). */
  covered(complete: readonly ScenarioDir[]): void;
  /** Byte offset from which the stream is complete. */
  completeAt(bytes: Buffer, file: string): number;
  /** What a cut before completeAt must end with. */
  readonly cutError: object;
  /** Event types that must not come before that error. */
  readonly neverBefore: readonly StreamEvent['type'][];
  /** The events a cut stream is compared on (the decoder adds some on its own at a cut). */
  comparable(events: readonly StreamEvent[]): StreamEvent[];
  /** What a cut at or after completeAt must give (Bedrock: the usage rides in a frame after messageStop). */
  afterComplete?(expected: readonly StreamEvent[], offset: number, bytes: Buffer): readonly StreamEvent[];
  /** Checks of the stream cut just before its terminator (or finishing chunk). */
  withoutTerminator?(bytes: Buffer, file: string, expected: readonly StreamEvent[], decode: (chunks: Iterable<Uint8Array>) => StreamEvent[]): void;
}

/** Byte offset just past the last data line whose text `isTerminator` accepts (the last data line by default). */
function pastDataLine(bytes: Buffer, isTerminator: (line: string) => boolean = () => true): number {
  const line =
    bytes
      .toString('latin1')
      .split('\n')
      .filter((l) => l.startsWith('data: ') && isTerminator(l))
      .at(-1) ?? '';
  return bytes.lastIndexOf(Buffer.from(line, 'latin1')) + line.length;
}

const SERVER_502 = { kind: 'server', status: 502 };
const all = (events: readonly StreamEvent[]) => [...events];

/** OpenAI and Anthropic: the stream cut before its terminator frame loses only message_stop. */
function beforeFrame(marker: string): TruncationRow['withoutTerminator'] {
  return (bytes, _, expected, decode) => {
    const events = decode([bytes.subarray(0, bytes.lastIndexOf(Buffer.from(marker)))]);
    expect(events.slice(0, -1)).toEqual(expected.slice(0, -1));
    expect(events.at(-1)).toMatchObject({ type: 'error', error: TRUNCATED });
  };
}

export const TRUNCATION: Readonly<Record<ProtocolId, TruncationRow>> = {
  openai: {
    files: ['stream.wire.txt'],
    covered: (complete) => expect(complete.length).toBeGreaterThan(0),
    completeAt: (bytes) => pastDataLine(bytes),
    cutError: SERVER_502,
    neverBefore: ['message_stop'],
    // OpenAI has no block boundaries on the wire: its decoder closes an open block before a truncation error.
    comparable: (events) => events.filter((e) => e.type !== 'block_stop'),
    withoutTerminator: beforeFrame('data: [DONE]'),
  },
  responses: {
    files: ['stream.wire.txt'],
    covered: (complete) => {
      const terminals = complete.map((s) => payloads(readBytes(s, 'stream.wire.txt').toString('utf8')).at(-1)?.type);
      expect(new Set(terminals)).toEqual(new Set(['response.completed', 'response.incomplete']));
    },
    completeAt: (bytes) => pastDataLine(bytes),
    cutError: SERVER_502,
    neverBefore: ['message_stop'],
    comparable: all,
    withoutTerminator: (bytes, _, __, decode) => {
      expect(decode([bytes.subarray(0, bytes.lastIndexOf(Buffer.from('event: response.')))]).at(-1)).toMatchObject({ type: 'error', error: TRUNCATED });
    },
  },
  anthropic: {
    files: ['stream.wire.txt'],
    covered: (complete) => expect(complete.length).toBeGreaterThan(0),
    completeAt: (bytes) => pastDataLine(bytes),
    cutError: SERVER_502,
    neverBefore: ['message_stop'],
    comparable: all,
    withoutTerminator: beforeFrame('event: message_stop'),
  },
  gemini: {
    // No terminator: a stream is complete at the chunk that carries a finishReason, its last `}`.
    files: ['stream.wire.txt', 'stream.array.txt'],
    covered: (complete) => expect(complete.length).toBeGreaterThan(5),
    completeAt: (bytes) => bytes.toString('latin1').lastIndexOf('}') + 1,
    cutError: SERVER_502,
    neverBefore: ['message_stop'],
    // Without the block_stop and usage events the decoder adds on its own at a cut.
    comparable: (events) => events.filter((e) => e.type !== 'block_stop' && e.type !== 'usage'),
    withoutTerminator: (bytes, file, _, decode) => {
      const text = bytes.toString('latin1');
      const lastChunk = file === 'stream.wire.txt' ? text.lastIndexOf('data: ') : text.lastIndexOf('\n,\r\n');
      const events = decode([bytes.subarray(0, lastChunk)]);
      expect(events.at(-1)).toMatchObject({ type: 'error', error: TRUNCATED });
      expect(events.filter((e) => e.type === 'error')).toHaveLength(1);
      expect(events.some((e) => e.type === 'message_stop' || e.type === 'finish')).toBe(false);
    },
  },
  bedrock: {
    // Complete once messageStop has arrived; metadata (the usage) may follow and is awaited when it does.
    files: ['stream.wire.bin'],
    covered: (complete) => expect(complete.length).toBeGreaterThanOrEqual(5),
    completeAt: (bytes) => frameEnds(bytes)[bytesToFrames(bytes).findIndex((f) => f.headers[':event-type'] === 'messageStop')] ?? 0,
    cutError: TRUNCATED,
    neverBefore: [],
    comparable: all,
    // Only a missing metadata frame loses the usage.
    afterComplete: (expected, offset, bytes) => {
      const metadataLast = bytesToFrames(bytes).at(-1)?.headers[':event-type'] === 'metadata';
      return offset === bytes.length || !metadataLast ? expected : expected.filter((e) => e.type !== 'usage');
    },
  },
  cohere: {
    files: ['stream.wire.txt'],
    covered: (complete) => expect(complete.length).toBeGreaterThanOrEqual(5),
    // A trailing [DONE] after message-end or not: the end is clean once message-end's data line is in.
    completeAt: (bytes) => pastDataLine(bytes, (line) => line.startsWith('data: {"type":"message-end"')),
    cutError: SERVER_502,
    neverBefore: ['message_stop', 'finish'],
    comparable: all,
    // message-end carries the finish and the usage: cut before it, all three are replaced by the error.
    withoutTerminator: (bytes, _, expected, decode) => {
      const events = decode([bytes.subarray(0, bytes.lastIndexOf(Buffer.from('event: message-end')))]);
      expect(expected.slice(-3).map((e) => e.type)).toEqual(['finish', 'usage', 'message_stop']);
      expect(events.slice(0, -1)).toEqual(expected.slice(0, -3));
      expect(events.at(-1)).toMatchObject({ type: 'error', error: TRUNCATED });
    },
  },
};
