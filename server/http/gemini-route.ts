import type { RequestOrigin } from '../protocols/codec.ts';

/**
 * Gemini names the model and the method in one path segment: `gemini-2.5-pro:streamGenerateContent`.
 * Undefined for methods this gateway does not serve (the caller answers 404).
 */
export function geminiRoute(action: string, alt: string | string[] | undefined): RequestOrigin | undefined {
  const colon = action.lastIndexOf(':');
  if (colon <= 0) return undefined;
  const model = action.slice(0, colon);
  const method = action.slice(colon + 1);
  if (method === 'generateContent') return { pathModel: model, pathStream: false };
  if (method === 'streamGenerateContent') return { pathModel: model, pathStream: true, jsonArrayStream: alt !== 'sse' };
  return undefined;
}
