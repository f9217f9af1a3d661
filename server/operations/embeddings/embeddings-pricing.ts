import type { ModelRoute } from '../../config/runtime-config.ts';
import { chargeMicrocents, microcentsPerToken } from '../../governance/token-price.ts';
import type { OperationPricing } from '../../gateway/admission.ts';
import { tokensInBytes } from '../../gateway/token-estimate.ts';
import { ZERO_USAGE } from '../../ir/index.ts';

/**
 * Embeddings are billed per input token at the lane's `operation_prices.embeddings.input` (USD per
 * million). The worst case: every byte of the request a token. Without a usage report the tokens
 * are estimated from the texts' bytes (about four a token, never zero).
 */
export function embeddingsPricing(request: { bytes: number; textBytes: number }): OperationPricing {
  return {
    worstCase: (lane) => {
      const price = embeddingPrice(lane);
      return price === undefined ? undefined : chargeMicrocents([{ tokens: request.bytes, price: microcentsPerToken(price) }]);
    },
    settle(summary) {
      const usage = summary.usage ?? { ...ZERO_USAGE, inputTokens: tokensInBytes(request.textBytes) };
      const price = embeddingPrice(summary.lane);
      return { usage, costMicrocents: price === undefined ? 0n : chargeMicrocents([{ tokens: usage.inputTokens, price: microcentsPerToken(price) }]) };
    },
  };
}

function embeddingPrice(lane: ModelRoute): number | undefined {
  return lane.operationPrices.embeddings?.input;
}
