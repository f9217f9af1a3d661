import type { RequestOrigin } from '../codec.ts';

const COUNT_TOKENS = ':countTokens';

/**
 * The model of a `model:countTokens` segment; undefined for any other method. Its route is tried
 * first on every Gemini request, so a generation request is told apart without a substring.
 */
export function geminiCountTokensModel(action: string): string | undefined {
  return action.length > COUNT_TOKENS.length && action.endsWith(COUNT_TOKENS) ? action.slice(0, -COUNT_TOKENS.length) : undefined;
}

/**
 * Gemini names the model and the method in one path segment: `gemini-2.5-pro:streamGenerateContent`.
 * Undefined for methods that are not generation (another route, or a 404).
 */
export function geminiChatOrigin(action: string, alt: string | string[] | undefined): RequestOrigin | undefined {
  const colon = action.lastIndexOf(':');
  if (colon <= 0) return undefined;
  const model = action.slice(0, colon);
  const method = action.slice(colon + 1);
  if (method === 'generateContent') return { pathModel: model, pathStream: false };
  if (method === 'streamGenerateContent') return { pathModel: model, pathStream: true, jsonArrayStream: alt !== 'sse' };
  return undefined;
}

/** `model:embedContent` (one vector) or `model:batchEmbedContents`; undefined for any other method. */
export function geminiEmbedOrigin(action: string): RequestOrigin | undefined {
  const colon = action.lastIndexOf(':');
  if (colon <= 0) return undefined;
  const method = action.slice(colon + 1);
  if (method === 'embedContent') return { pathModel: action.slice(0, colon), variant: 'single' };
  if (method === 'batchEmbedContents') return { pathModel: action.slice(0, colon), variant: 'batch' };
  return undefined;
}
