import type { Usage } from '../../ir/index.ts';
import type { CompletionUsage as OpenAIUsage } from '../../../generated/protocols/openai/response.ts';

/** OpenAI counts cached tokens inside prompt_tokens and reasoning inside completion_tokens, like the IR. */
export function decodeUsage(usage: OpenAIUsage): Usage {
  return {
    inputTokens: usage.prompt_tokens ?? 0,
    outputTokens: usage.completion_tokens ?? 0,
    cacheReadTokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
    cacheWriteTokens: usage.prompt_tokens_details?.cache_write_tokens ?? 0,
    reasoningTokens: usage.completion_tokens_details?.reasoning_tokens ?? 0,
  };
}

export function encodeUsage(usage: Usage): OpenAIUsage {
  const promptDetails: { cached_tokens: number; cache_write_tokens?: number } = { cached_tokens: usage.cacheReadTokens };
  if (usage.cacheWriteTokens > 0) promptDetails.cache_write_tokens = usage.cacheWriteTokens;
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: promptDetails,
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens },
  };
}
