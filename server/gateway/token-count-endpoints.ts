import type { ChatRequest, ProtocolId } from '../ir/index.ts';
import type { LaneContext } from '../protocols/codec.ts';
import { codecFor } from '../protocols/registry.ts';

/**
 * The providers' own input-token count endpoints, for a request already in IR: where to post, what
 * to post (the lane codec's request body, narrowed to what the endpoint takes) and where the count
 * is in the answer. Cohere has none the gateway uses (its lanes get an estimate).
 */
export interface CountEndpoint {
  readonly path: string;
  readonly body: Record<string, unknown>;
  /** The count in the endpoint's answer, or undefined when the answer has none. */
  count(answer: Record<string, unknown>): number | undefined;
}

/** Members of a Messages body that `POST /v1/messages/count_tokens` takes. */
const ANTHROPIC_COUNT_FIELDS = ['model', 'messages', 'system', 'tools', 'tool_choice', 'thinking', 'mcp_servers'];
/** Members of a Converse body that Bedrock's CountTokens takes (as `input.converse`). */
const BEDROCK_COUNT_FIELDS = ['messages', 'system', 'toolConfig', 'additionalModelRequestFields'];
/** Members of a Responses body that `POST /v1/responses/input_tokens` takes. */
const RESPONSES_COUNT_FIELDS = ['model', 'input', 'instructions', 'tools', 'tool_choice', 'parallel_tool_calls', 'reasoning', 'text', 'truncation'];

const numberAt = (answer: Record<string, unknown>, key: string): number | undefined => (typeof answer[key] === 'number' ? answer[key] : undefined);

export function countEndpointFor(target: ProtocolId, request: ChatRequest, lane: LaneContext): CountEndpoint | undefined {
  switch (target) {
    case 'anthropic':
      return { path: '/v1/messages/count_tokens', body: pick(encoded('anthropic', request, lane), ANTHROPIC_COUNT_FIELDS), count: (a) => numberAt(a, 'input_tokens') };
    case 'gemini': {
      // countTokens takes the whole generateContent request, with the model named as a resource.
      const generateContentRequest = { model: `models/${lane.model}`, ...encoded('gemini', request, lane) };
      return { path: `/v1beta/models/${encodeURIComponent(lane.model)}:countTokens`, body: { generateContentRequest }, count: (a) => numberAt(a, 'totalTokens') };
    }
    case 'responses':
    case 'openai':
      // OpenAI counts through the Responses API; an OpenAI-compatible provider without it answers 404 (then: an estimate).
      return { path: '/responses/input_tokens', body: pick(encoded('responses', request, lane), RESPONSES_COUNT_FIELDS), count: (a) => numberAt(a, 'input_tokens') };
    case 'bedrock':
      // CountTokens (POST /model/{id}/count-tokens): models without it answer an error (then: an estimate).
      return { path: `/model/${encodeURIComponent(lane.model)}/count-tokens`, body: { input: { converse: pick(encoded('bedrock', request, lane), BEDROCK_COUNT_FIELDS) } }, count: (a) => numberAt(a, 'inputTokens') };
    case 'cohere':
      return undefined;
  }
}

function encoded(protocol: ProtocolId, request: ChatRequest, lane: LaneContext): Record<string, unknown> {
  const codec = codecFor(protocol);
  if (codec === undefined) throw new Error(`no codec for ${protocol}`);
  return codec.encodeRequest({ ...request, stream: false }, lane).body;
}

function pick(body: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) if (body[key] !== undefined) out[key] = body[key];
  return out;
}
