import type { Usage } from '../../ir/index.ts';
import type { Usage as AnthropicUsage } from '../../../generated/protocols/anthropic/response.ts';

/** Anthropic's input_tokens exclude cache reads and writes; the IR's input counts them. */
export function decodeUsage(usage: AnthropicUsage): Usage {
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  const cacheWrite = usage.cache_creation_input_tokens ?? 0;
  return {
    inputTokens: (usage.input_tokens ?? 0) + cacheRead + cacheWrite,
    outputTokens: usage.output_tokens ?? 0,
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
    reasoningTokens: usage.output_tokens_details?.thinking_tokens ?? 0,
  };
}

export function encodeUsage(usage: Usage): AnthropicUsage {
  return {
    input_tokens: Math.max(0, usage.inputTokens - usage.cacheReadTokens - usage.cacheWriteTokens),
    output_tokens: usage.outputTokens,
    cache_creation_input_tokens: usage.cacheWriteTokens,
    cache_read_input_tokens: usage.cacheReadTokens,
    // Thinking is inside output_tokens; the breakdown says how much (decodeUsage reads it back).
    ...(usage.reasoningTokens > 0 && { output_tokens_details: { thinking_tokens: usage.reasoningTokens } }),
  };
}
