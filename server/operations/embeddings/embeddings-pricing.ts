import type { OperationPricing } from '../../gateway/admission.ts';
import { tokensInBytes } from '../../gateway/token-estimate.ts';
import { ZERO_USAGE } from '../../ir/index.ts';
import { PER_INPUT_TOKEN, unitPricing } from '../unit-pricing.ts';

/**
 * Embeddings are billed per input token at the lane's `operation_prices.embeddings.input` (USD per
 * million). The worst case, in money and in tokens: every byte of the request a token. Without a usage report the tokens
 * are estimated from the texts' bytes (about four a token, never zero).
 */
export function embeddingsPricing(request: { bytes: number; textBytes: number }): OperationPricing {
  return unitPricing('embeddings', PER_INPUT_TOKEN, { units: request.bytes, tokens: request.bytes }, (summary) => {
    const usage = summary.usage ?? { ...ZERO_USAGE, inputTokens: tokensInBytes(request.textBytes) };
    return { units: usage.inputTokens, usage };
  });
}
