import type { Price } from '../config/runtime-config.ts';
import type { Usage } from '../ir/response.ts';
import { chargeMicrocents, dearest, microcentsPerToken } from './token-price.ts';

/**
 * What a request cost, from the usage the upstream reported. IR usage counts cache reads and
 * writes inside inputTokens, so only the rest is charged at the input price; a provider without
 * separate cache prices bills them as input. Rounded up to a whole microcent.
 */
export function costMicrocents(usage: Usage, price: Price): bigint {
  const input = microcentsPerToken(price.input);
  const uncached = usage.inputTokens - usage.cacheReadTokens - usage.cacheWriteTokens;
  return chargeMicrocents([
    { tokens: uncached, price: input },
    { tokens: usage.cacheReadTokens, price: price.cache_read === undefined ? input : microcentsPerToken(price.cache_read) },
    { tokens: usage.cacheWriteTokens, price: price.cache_write === undefined ? input : microcentsPerToken(price.cache_write) },
    { tokens: usage.outputTokens, price: microcentsPerToken(price.output) },
  ]);
}

export interface WorstCaseInput {
  /** Size of the request body as sent by the client. */
  readonly requestBytes: number;
  /** The output limit the upstream will be held to (the request's, or the model's default). */
  readonly maxOutputTokens: number;
  readonly price: Price;
  /**
   * Input tokens the bytes do not show: media fetched by URL or file reference (a short URL can be
   * an image of a thousand tokens), provider-added prompts. 0 when the body holds everything.
   */
  readonly extraInputTokens?: number;
}

/**
 * The most a request can cost, reserved before it is sent. A token is at least one byte of the
 * request, so the body's byte count bounds the input tokens; each is charged at the dearest input
 * price (a provider may bill them as cache writes), and the output at its limit.
 */
export function worstCaseMicrocents(input: WorstCaseInput): bigint {
  const { price } = input;
  const inputPrices = [price.input, price.cache_read ?? price.input, price.cache_write ?? price.input].map(microcentsPerToken);
  return chargeMicrocents([
    { tokens: input.requestBytes + (input.extraInputTokens ?? 0), price: dearest(inputPrices) },
    { tokens: input.maxOutputTokens, price: microcentsPerToken(price.output) },
  ]);
}
