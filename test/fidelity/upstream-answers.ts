// Upstream answers for the fidelity tests, in any lane's protocol, written by that protocol's own
// encoder from one IR answer (the codecs' SDK tests establish that the encoders write real wire).
import type { ChatResponse, ContentBlock, ProtocolId } from '../../server/ir/index.ts';
import { codecFor } from '../../server/protocols/registry.ts';
import type { ScriptedReply } from '../support/mock-upstream.ts';

const USAGE = { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };

/** A non-stream answer in `protocol` with these blocks. */
export function answerIn(protocol: ProtocolId, content: readonly ContentBlock[], upstreamModel = `upstream-${protocol}`): ScriptedReply {
  const toolCall = content.some((b) => b.type === 'tool_call');
  const response: ChatResponse = {
    id: `resp_${protocol}`,
    model: upstreamModel,
    content,
    finish: toolCall ? { reason: 'tool_calls', raw: null } : { reason: 'stop', raw: null },
    usage: USAGE,
  };
  return {
    status: 200,
    headers: { 'content-type': 'application/json' },
    raw: JSON.stringify(codecFor(protocol)!.encodeResponse(response, { streamUsage: false }).body),
  };
}

/** A tool call to get_weather (with OpenAI-issued encrypted reasoning first when the lane is Responses). */
export function toolCallAnswer(protocol: ProtocolId, callId = 'call_weather_1'): ScriptedReply {
  const reasoning: ContentBlock[] =
    protocol === 'responses' ? [{ type: 'reasoning', text: '', redacted: 'gAAAA-encrypted', origin: 'responses', id: 'rs_1' }] : [];
  return answerIn(protocol, [...reasoning, { type: 'tool_call', id: callId, name: 'get_weather', arguments: '{"city":"Paris"}' }]);
}

export const textAnswer = (protocol: ProtocolId, text = 'It is 18C.') => answerIn(protocol, [{ type: 'text', text }]);
