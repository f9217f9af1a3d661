import type { Usage } from '../../ir/index.ts';
import type { UsageMetadata as GeminiUsageMetadata } from '../../../generated/protocols/gemini/response.ts';

/**
 * Gemini's promptTokenCount already includes cached content (like the IR); candidatesTokenCount
 * excludes thoughts (unlike the IR), and tool-use prompt tokens (search results and the like) are
 * counted apart: the IR's input is everything read, its output everything generated.
 */
export function decodeUsage(usage: GeminiUsageMetadata): Usage {
  const reasoning = usage.thoughtsTokenCount ?? 0;
  return {
    inputTokens: (usage.promptTokenCount ?? 0) + (usage.toolUsePromptTokenCount ?? 0),
    outputTokens: (usage.candidatesTokenCount ?? 0) + reasoning,
    cacheReadTokens: usage.cachedContentTokenCount ?? 0,
    // Gemini has no separate cache-write charge: context caches are created by their own API call.
    cacheWriteTokens: 0,
    reasoningTokens: reasoning,
  };
}

/** Cache writes stay inside promptTokenCount (Gemini has no field for them), so totals still add up. */
export function encodeUsage(usage: Usage): GeminiUsageMetadata {
  return {
    promptTokenCount: usage.inputTokens,
    candidatesTokenCount: Math.max(0, usage.outputTokens - usage.reasoningTokens),
    totalTokenCount: usage.inputTokens + usage.outputTokens,
    ...(usage.cacheReadTokens > 0 && { cachedContentTokenCount: usage.cacheReadTokens }),
    ...(usage.reasoningTokens > 0 && { thoughtsTokenCount: usage.reasoningTokens }),
  };
}
