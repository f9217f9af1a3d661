import type { Usage } from '../../ir/index.ts';
import type { TranslationWarning } from '../codec.ts';
import { dropped } from '../shared/warnings.ts';
import type { Usage as CohereUsage } from '../../../generated/protocols/cohere/response.ts';

/**
 * `tokens` is what the model processed; `billed_units` leaves out prompt tokens Cohere does not
 * charge for, so it is only the fallback. Cached tokens are part of the prompt count, as in the IR.
 * Cohere reports no reasoning or cache-write breakdown.
 */
export function decodeUsage(usage: CohereUsage): Usage {
  return {
    inputTokens: usage.tokens?.input_tokens ?? usage.billed_units?.input_tokens ?? 0,
    outputTokens: usage.tokens?.output_tokens ?? usage.billed_units?.output_tokens ?? 0,
    cacheReadTokens: usage.cached_tokens ?? 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
  };
}

/** The gateway does not know what the upstream billed, so billed units restate the token counts. */
export function encodeUsage(usage: Usage): CohereUsage {
  const counts = { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens };
  return { billed_units: { ...counts }, tokens: { ...counts }, cached_tokens: usage.cacheReadTokens };
}

/** The totals keep every token; only the breakdown Cohere has no field for is lost. */
export function usageWarnings(usage: Usage): TranslationWarning[] {
  const warnings: TranslationWarning[] = [];
  if (usage.cacheWriteTokens > 0) warnings.push(dropped('usage.cache_write_tokens', 'the cache-write token count'));
  if (usage.reasoningTokens > 0) warnings.push(dropped('usage.reasoning_tokens', 'the reasoning token count'));
  return warnings;
}
