// The mock upstream's answers in all six protocols, encoded from one IR reply by the codecs' own
// encoders (as the 6x6 matrix's upstream does; the codecs' SDK tests establish that these bytes are
// what each official SDK reads). server/demo has builders for OpenAI and Anthropic only.
import { EVENTSTREAM_HEADERS } from '../server/framing/eventstream-frame.ts';
import { SSE_HEADERS } from '../server/framing/sse-format.ts';
import { WireBatch } from '../server/framing/wire-chunks.ts';
import type { ChatResponse, ProtocolId, StreamEvent } from '../server/ir/index.ts';
import { codecFor } from '../server/protocols/registry.ts';
import type { WireChunk } from '../server/protocols/codec.ts';

/** The zero-delay answer: about 180 characters in 20 deltas, like a short model reply. */
const ZERO_DELAY_PIECES = Array.from({ length: 20 }, (_, i) => `${i === 0 ? '' : ' '}The quick brown fox ${i + 1}.`);

/** A paced stream's i-th chunk (1-based) carries this marker, so a client can tell chunks apart in any protocol. */
export const chunkMarker = (i: number) => `#c${i}#`;
export const CHUNK_MARKER_PATTERN = /#c(\d+)#/g;

function reply(pieces: readonly string[]): ChatResponse {
  return {
    id: 'resp_bench',
    model: 'bench-model',
    content: [{ type: 'text', text: pieces.join('') }],
    finish: { reason: 'stop', raw: null },
    usage: { inputTokens: 42, outputTokens: 40, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
  };
}

/** A stream's IR events grouped by write: the first group opens the message, the last closes it. */
function eventGroups(pieces: readonly string[]): StreamEvent[][] {
  const r = reply(pieces);
  const groups: StreamEvent[][] = pieces.map((text) => [{ type: 'block_delta', index: 0, delta: { type: 'text', text } }]);
  groups[0]!.unshift({ type: 'message_start', id: r.id, model: r.model }, { type: 'block_start', index: 0, block: { type: 'text' } });
  groups[groups.length - 1]!.push(
    { type: 'block_stop', index: 0 },
    { type: 'finish', finish: r.finish },
    { type: 'usage', usage: r.usage! },
    { type: 'message_stop' },
  );
  return groups;
}

export interface StreamReply {
  readonly headers: Readonly<Record<string, string>>;
  /** One wire chunk per write. */
  readonly writes: readonly WireChunk[];
}

function encodeStream(protocol: ProtocolId, pieces: readonly string[], jsonArray: boolean): StreamReply {
  const encoder = codecFor(protocol)!.createStreamEncoder({ streamUsage: true, jsonArrayStream: jsonArray });
  const writes = eventGroups(pieces).map((group) => {
    const batch = new WireBatch();
    for (const event of group) batch.add(encoder.encode(event));
    return batch.take();
  });
  return { headers: protocol === 'bedrock' ? EVENTSTREAM_HEADERS : SSE_HEADERS, writes };
}

/** Answers computed once, so the mock spends almost nothing per request. */
export class MockReplies {
  private readonly json = new Map<ProtocolId, string>();
  private readonly streams = new Map<string, StreamReply>();

  constructor() {
    for (const protocol of ['openai', 'responses', 'anthropic', 'gemini', 'bedrock', 'cohere'] as const) {
      this.json.set(protocol, JSON.stringify(codecFor(protocol)!.encodeResponse(reply(ZERO_DELAY_PIECES), { streamUsage: true }).body));
    }
  }

  jsonBody(protocol: ProtocolId): string {
    return this.json.get(protocol)!;
  }

  /** The whole stream in one write (zero delay), or `chunks` writes for paced mode (each a marked delta). */
  stream(protocol: ProtocolId, jsonArray: boolean, chunks: number | undefined): StreamReply {
    const key = `${protocol}:${jsonArray}:${chunks ?? 'whole'}`;
    let found = this.streams.get(key);
    if (found === undefined) {
      if (chunks === undefined) {
        const whole = encodeStream(protocol, ZERO_DELAY_PIECES, jsonArray);
        const batch = new WireBatch();
        for (const write of whole.writes) batch.add(write);
        found = { headers: whole.headers, writes: [batch.take()] };
      } else {
        found = encodeStream(
          protocol,
          Array.from({ length: chunks }, (_, i) => `${chunkMarker(i + 1)} word `),
          jsonArray,
        );
      }
      if (this.streams.size < 64) this.streams.set(key, found); // bounded: paced chunk counts come from requests
    }
    return found;
  }
}
