import type { Usage } from '../../ir/index.ts';
import type { TokenUsage as BedrockUsage } from '../../../generated/protocols/bedrock/response.ts';

/**
 * Bedrock's inputTokens exclude cache reads and writes (totalTokens includes them); the IR's input
 * counts them. Bedrock reports no reasoning breakdown: reasoning is inside outputTokens.
 */
/** The counts read; an answer's and a stream's usage share them (their cacheDetails differ in the schemas). */
type UsageCounts = Partial<Pick<BedrockUsage, 'inputTokens' | 'outputTokens' | 'cacheReadInputTokens' | 'cacheWriteInputTokens'>>;

export function decodeUsage(usage: UsageCounts): Usage {
  const cacheRead = usage.cacheReadInputTokens ?? 0;
  const cacheWrite = usage.cacheWriteInputTokens ?? 0;
  return {
    inputTokens: (usage.inputTokens ?? 0) + cacheRead + cacheWrite,
    outputTokens: usage.outputTokens ?? 0,
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
    reasoningTokens: 0,
  };
}

export function encodeUsage(usage: Usage): BedrockUsage {
  return {
    inputTokens: Math.max(0, usage.inputTokens - usage.cacheReadTokens - usage.cacheWriteTokens),
    outputTokens: usage.outputTokens,
    totalTokens: usage.inputTokens + usage.outputTokens,
    // Bedrock states the cache counts only when the request used caching.
    ...(usage.cacheReadTokens > 0 && { cacheReadInputTokens: usage.cacheReadTokens }),
    ...(usage.cacheWriteTokens > 0 && { cacheWriteInputTokens: usage.cacheWriteTokens }),
  };
}
