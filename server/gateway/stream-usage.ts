import { requestStreamUsage } from '../protocols/openai/stream-usage-request.ts';
import type { Exchange } from './gateway-context.ts';

/** The request bytes a same-protocol lane is sent, and whether its stream needs usage taken back out. */
export interface SameProtocolRequest {
  readonly body: Buffer;
  readonly stripUsage: boolean;
}

/**
 * Of the six protocols only OpenAI chat streams report usage on request alone
 * (`stream_options.include_usage`); Responses (`response.completed`), Anthropic (`message_start`
 * and `message_delta`), Gemini (`usageMetadata`), Bedrock (`metadata`) and Cohere (`message-end`)
 * always do. Without it a stream is billed on an estimate, so when the gateway uses usage
 * (governance settles spend; observers count tokens and cost) the upstream is asked for it, and
 * the client still gets exactly the stream it asked for.
 */
export function sameProtocolRequest(exchange: Exchange, body: Buffer, stream: boolean): SameProtocolRequest {
  if (!stream || exchange.ingress.codec.id !== 'openai' || !usesUsage(exchange)) return { body, stripUsage: false };
  const asked = requestStreamUsage(body);
  return { body: asked.body, stripUsage: !asked.clientAsked };
}

/** Someone reads an answer's usage: spend settlement, or the request record's observers. */
function usesUsage(exchange: Exchange): boolean {
  return exchange.gateway.governance !== undefined || exchange.gateway.observers.length > 0;
}
