import type { ImageBlock, OpaqueSignature } from '../../ir/index.ts';
import type { TranslationWarning } from '../codec.ts';
import { dropped } from '../shared/warnings.ts';
import type { FileData as GeminiFileData, Part as GeminiPart } from '../../../generated/protocols/gemini/request.ts';

/**
 * `thoughtSignature` for a part: replayed only when Gemini issued it. A missing one is left
 * missing (a foreign history has none, and inventing one would be refused anyway).
 */
export function signatureOf(signature: OpaqueSignature | undefined, path: string, warnings: TranslationWarning[]): { thoughtSignature?: string } {
  if (signature === undefined) return {};
  if (signature.origin === 'gemini') return { thoughtSignature: signature.value };
  warnings.push(dropped(`${path}.signature`, `a signature issued by the ${signature.origin} protocol`));
  return {};
}

/** Base64 images travel inline; URLs as fileData, with the media type their extension names. */
export function imagePart(block: ImageBlock, path: string, warnings: TranslationWarning[]): GeminiPart {
  if (block.detail !== undefined) warnings.push(dropped(`${path}.detail`, 'image detail level'));
  if (block.source.kind === 'base64') return { inlineData: { mimeType: block.source.mediaType, data: block.source.data } };
  const mimeType = mimeTypeOfUrl(block.source.url);
  const fileData: GeminiFileData = { fileUri: block.source.url, ...(mimeType !== undefined && { mimeType }) };
  return { fileData };
}

const IMAGE_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  heic: 'image/heic',
  heif: 'image/heif',
};

/** The image MIME type a URL's extension names; undefined when it names none Gemini takes. */
export function mimeTypeOfUrl(url: string): string | undefined {
  const extension = /\.([A-Za-z0-9]+)(?:[?#].*)?$/.exec(url)?.[1]?.toLowerCase();
  return extension === undefined ? undefined : IMAGE_TYPES[extension];
}
