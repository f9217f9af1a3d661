import type { ModelRoute, OperationPrice } from '../config/runtime-config.ts';
import type { OperationPricing } from '../gateway/admission.ts';
import type { AnswerSummary } from '../gateway/client-response.ts';
import { chargeMicrocents, microcentsPerToken } from '../governance/token-price.ts';
import type { Operation } from '../ir/operation.ts';
import { ZERO_USAGE, type Usage } from '../ir/index.ts';

/**
 * The billing unit of an operation's price and how many of it one priced number covers: the
 * catalog's `operation_prices` keep each provider's own unit (per image, per audio second, per
 * million characters, per thousand searches), so a charge is units × price / per.
 */
export interface PriceUnit {
  /** The lane's price for one `per` units, from its `operation_prices` entry (undefined: unpriced). */
  priceIn(price: OperationPrice): number | undefined;
  /** Units the price is for: 1 (per image, per second), 1e6 (per million), 1000 (per thousand). */
  readonly per: number;
}

export const PER_INPUT_TOKEN: PriceUnit = { priceIn: (p) => p.input, per: 1e6 };
export const PER_IMAGE: PriceUnit = { priceIn: (p) => p.per_image, per: 1 };
export const PER_AUDIO_SECOND: PriceUnit = { priceIn: (p) => p.per_audio_second, per: 1 };
export const PER_CHARACTER: PriceUnit = { priceIn: (p) => p.per_million_characters, per: 1e6 };
export const PER_SEARCH: PriceUnit = { priceIn: (p) => p.per_thousand_requests, per: 1000 };

/**
 * Per image of a size and quality: `per_image_by_size["<quality>/<size>"]`, else `["<size>"]`,
 * else `per_image` (OpenAI prices dall-e-3 and gpt-image by both).
 */
export function perImageOf(size: string | undefined, quality: string | undefined): PriceUnit {
  return {
    per: 1,
    priceIn: (p) =>
      (size === undefined ? undefined : ((quality === undefined ? undefined : p.per_image_by_size?.[`${quality}/${size}`]) ?? p.per_image_by_size?.[size])) ??
      p.per_image,
  };
}

/** What a settlement charges: units, and the usage the record carries (tokens where the unit is one). */
export interface SettledUnits {
  readonly units: number;
  readonly usage?: Usage;
}

/** The most a request of a per-unit operation can use: billed units, and tokens as its usage will count them. */
export interface WorstUnits {
  readonly units: number;
  /** Input + output tokens its settled usage can hold (held against a key's tpm); 0 when its usage carries none. */
  readonly tokens: number;
}

/**
 * Pricing of an operation billed per unit: the worst case reserved is `worst.units` on the dearest
 * serving lane; the settlement charges what `settled` reads of the answer (exact µ¢, rounded up
 * once). A lane without a price for the operation is unpriced (a budgeted key is then refused).
 */
export function unitPricing(operation: Operation, unit: PriceUnit, worst: WorstUnits, settled: (summary: AnswerSummary) => SettledUnits): OperationPricing {
  return {
    worstCase: (lane) => {
      const price = priceOf(lane, operation, unit);
      return price === undefined ? undefined : chargeUnits(worst.units, price, unit);
    },
    worstCaseTokens: () => worst.tokens,
    settle(summary) {
      const { units, usage } = settled(summary);
      const price = priceOf(summary.lane, operation, unit);
      return { usage: usage ?? summary.usage ?? ZERO_USAGE, costMicrocents: price === undefined ? 0n : chargeUnits(units, price, unit) };
    },
  };
}

function priceOf(lane: ModelRoute, operation: Operation, unit: PriceUnit): number | undefined {
  const price = lane.operationPrices[operation];
  return price === undefined ? undefined : unit.priceIn(price);
}

/** units × price / per in µ¢: `microcentsPerToken` reads a price per million, so scale the units to match. */
export function chargeUnits(units: number, price: number, unit: PriceUnit): bigint {
  return chargeMicrocents([{ tokens: Math.ceil(units * (1e6 / unit.per) - 1e-9), price: microcentsPerToken(price) }]);
}
