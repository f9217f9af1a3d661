// A streamed upstream answer in any lane's protocol, written by that protocol's own stream encoder.
import { EVENTSTREAM_HEADERS } from '../../server/framing/eventstream-frame.ts';
import { SSE_HEADERS } from '../../server/framing/sse-format.ts';
import type { ProtocolId, StreamEvent } from '../../server/ir/index.ts';
import { codecFor } from '../../server/protocols/registry.ts';
import type { ScriptedReply } from '../support/mock-upstream.ts';

export function streamedTextAnswer(protocol: ProtocolId, text = 'It is 18C.'): ScriptedReply {
  const events: StreamEvent[] = [
    { type: 'message_start', id: `resp_${protocol}`, model: `upstream-${protocol}` },
    { type: 'block_start', index: 0, block: { type: 'text' } },
    { type: 'block_delta', index: 0, delta: { type: 'text', text } },
    { type: 'block_stop', index: 0 },
    { type: 'finish', finish: { reason: 'stop', raw: null } },
    { type: 'usage', usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 } },
    { type: 'message_stop' },
  ];
  const encoder = codecFor(protocol)!.createStreamEncoder({ streamUsage: true });
  const chunks = events
    .map((e) => encoder.encode(e))
    .filter((c) => c.length > 0)
    .map((c) => (typeof c === 'string' ? c : Buffer.from(c)));
  return { status: 200, headers: { ...(protocol === 'bedrock' ? EVENTSTREAM_HEADERS : SSE_HEADERS) }, events: chunks };
}
