import { perImageOf, unitPricing } from '../unit-pricing.ts';
import type { MultipartRoute } from '../multipart/multipart-operation.ts';
import { imageCount } from './openai-media-routes.ts';
import { transcriptionPricing } from './transcription-pricing.ts';

/** `POST /v1/audio/transcriptions` and `/translations`: per audio second (transcription-pricing.ts). */
export function audioUpload(variant: 'transcriptions' | 'translations'): MultipartRoute {
  return {
    operation: 'audio',
    upstreamPath: `/audio/${variant}`,
    price: (exchange, upload, worstBytes) => transcriptionPricing(exchange, worstBytes, () => upload.bytesRead),
  };
}

/**
 * `POST /v1/images/edits` and `/variations`: `n` images at the size's price. `n`, `size` and
 * `quality` are read when the client sends them before `model` (the parts after it stream through
 * unread): else 1 image at `per_image`.
 */
export function imageUpload(variant: 'edits' | 'variations'): MultipartRoute {
  return {
    operation: 'images',
    upstreamPath: `/images/${variant}`,
    price: (_exchange, upload) => {
      const field = upload.field('n');
      const n = imageCount(field === undefined ? undefined : Number(field));
      return {
        pricing: unitPricing('images', perImageOf(upload.field('size'), upload.field('quality')), { units: n, tokens: 0 }, () => ({ units: n })),
      };
    },
  };
}
