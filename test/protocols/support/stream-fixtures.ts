// What the table-driven suites over all six protocols need to know of each one's stream fixtures:
// which files a scenario may hold (Gemini has two framings, Bedrock a binary one), which line ends
// its SSE may come with, and how its streams are decoded. One row a protocol.
import type { StreamEvent } from '../../../server/ir/index.ts';
import type { ProtocolId } from '../../../server/protocols/registry.ts';
import { withLineEnds } from './chunking.ts';
import { codecFor } from '../../../server/protocols/registry.ts';
import { decodeChunks } from './codecs.ts';

/** The same stream with other line ends (SSE allows CRLF, LF and CR). */
export interface LineEnds {
  readonly name: 'CRLF' | 'CR' | 'LF';
  convert(bytes: Uint8Array): Uint8Array;
}

const fromLf = (name: 'CRLF' | 'CR', ending: '\r\n' | '\r'): LineEnds => ({ name, convert: (bytes) => withLineEnds(bytes, ending) });
/** Google writes CRLF: its variants replace CRLF. */
const fromCrlf = (name: 'LF' | 'CR', ending: '\n' | '\r'): LineEnds => ({
  name,
  convert: (bytes) => Buffer.from(Buffer.from(bytes).toString('latin1').replaceAll('\r\n', ending), 'latin1'),
});
const LF_SSE = [fromLf('CRLF', '\r\n'), fromLf('CR', '\r')];

export interface StreamFile {
  readonly file: string;
  readonly lineEnds: readonly LineEnds[];
}

export interface StreamFixtures {
  readonly files: readonly StreamFile[];
  /** The scenario whose streams must hold 3- and 4-byte UTF-8; absent: the protocol's streams together must. */
  readonly unicodeScenario?: string;
  /** A 3-byte script the unicode streams must contain. */
  readonly threeByte: RegExp;
  /** Seeded random chunkings to try besides the systematic cuts (binary framing: frames cut anywhere). */
  readonly randomChunkings: number;
}

const CJK = /[\u3040-\u30ff\u4e00-\u9fff]/u;
const sse = (unicodeScenario?: string): StreamFixtures => ({
  files: [{ file: 'stream.wire.txt', lineEnds: LF_SSE }],
  ...(unicodeScenario !== undefined && { unicodeScenario }),
  threeByte: CJK,
  randomChunkings: 0,
});

export const STREAM_FIXTURES: Readonly<Record<ProtocolId, StreamFixtures>> = {
  openai: sse('text-unicode'),
  responses: sse(),
  anthropic: sse('text-unicode'),
  gemini: {
    files: [
      { file: 'stream.wire.txt', lineEnds: [fromCrlf('LF', '\n'), fromCrlf('CR', '\r')] },
      { file: 'stream.array.txt', lineEnds: [] },
    ],
    unicodeScenario: 'text-unicode',
    threeByte: CJK,
    randomChunkings: 0,
  },
  bedrock: { files: [{ file: 'stream.wire.bin', lineEnds: [] }], unicodeScenario: 'text-unicode', threeByte: /[\u3040-\u30ff]/u, randomChunkings: 200 },
  cohere: sse('text-unicode'),
};

/** Feeds `chunks` to a fresh decoder of the protocol, then ends it. */
export function decodeStreamOf(protocol: ProtocolId): (chunks: Iterable<Uint8Array>) => StreamEvent[] {
  const codec = codecFor(protocol);
  if (codec === undefined) throw new Error(`no codec registered for ${protocol}`);
  return (chunks) => decodeChunks(codec.createStreamDecoder(), chunks);
}
