import { tokensInBytes } from '../../gateway/token-estimate.ts';
import { ZERO_USAGE } from '../../ir/index.ts';
import { invalidField } from '../../protocols/shared/invalid-field.ts';
import { PER_CHARACTER, PER_INPUT_TOKEN, perImageOf, unitPricing } from '../unit-pricing.ts';
import type { JsonMediaRoute } from './json-media-operation.ts';

/**
 * `POST /v1/moderations`: priced per input token (`operation_prices.moderations.input`; OpenAI's
 * are free, price 0). The answer reports no usage, so the tokens are estimated from the input's
 * bytes (about four a token).
 */
export const MODERATIONS: JsonMediaRoute = {
  operation: 'moderations',
  upstreamPath: '/moderations',
  price(json, body) {
    if (json.input === undefined) throw invalidField('input', 'the text (or inputs) to classify is required');
    const tokens = tokensInBytes(body.length);
    // Its usage is the estimate itself, so that is its tokens' worst case too.
    const worst = { units: body.length, tokens };
    return { pricing: unitPricing('moderations', PER_INPUT_TOKEN, worst, () => ({ units: tokens, usage: { ...ZERO_USAGE, inputTokens: tokens } })) };
  },
};

/**
 * `POST /v1/images/generations`: `n` images (default 1) at the lane's price for the request's size
 * and quality (`per_image_by_size`, else `per_image`). No tokens: its settlement records none.
 */
export const IMAGE_GENERATIONS: JsonMediaRoute = {
  operation: 'images',
  upstreamPath: '/images/generations',
  price(json) {
    if (typeof json.prompt !== 'string' || json.prompt === '') throw invalidField('prompt', 'a text description of the image is required');
    const n = imageCount(json.n);
    const unit = perImageOf(optionalString(json.size), optionalString(json.quality));
    return { pricing: unitPricing('images', unit, { units: n, tokens: 0 }, () => ({ units: n })) };
  },
};

/** `POST /v1/audio/speech`: the input's characters at `operation_prices.audio.per_million_characters`; no tokens recorded. */
export const SPEECH: JsonMediaRoute = {
  operation: 'audio',
  upstreamPath: '/audio/speech',
  price(json) {
    if (typeof json.input !== 'string' || json.input === '') throw invalidField('input', 'the text to speak is required');
    let characters = 0;
    for (const _ of json.input) characters++; // code points, as providers count characters
    return { pricing: unitPricing('audio', PER_CHARACTER, { units: characters, tokens: 0 }, () => ({ units: characters })) };
  },
};

/** `n` of an image request: 1 when absent; a whole number from 1 to 10 (OpenAI's range) otherwise. */
export function imageCount(value: unknown): number {
  if (value === undefined || value === null) return 1;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 10) throw invalidField('n', 'a whole number of images from 1 to 10');
  return value;
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
