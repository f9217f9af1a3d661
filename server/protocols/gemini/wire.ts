// What the Gemini generateContent schemas (spec/protocols/gemini/) cannot say as TypeScript. The
// request, response, usage and error types are generated from those schemas
// (generated/protocols/gemini/) and the codec imports them from there; only this stays by hand.
import type { Status } from '../../../generated/protocols/gemini/error.ts';
import type { Content, GeminiRequest, Part } from '../../../generated/protocols/gemini/request.ts';
import type { GeminiResponse } from '../../../generated/protocols/gemini/response.ts';

/**
 * A streamed chunk: a partial response (a chunk may carry only usage, with neither the candidates
 * nor the promptFeedback a whole response must have), or an error after HTTP 200. The
 * stream-event schema says so with if/then/else on the presence of `error`, which compiles to no
 * type at all.
 */
export type GeminiStreamChunk = Partial<
  Pick<GeminiResponse, 'candidates' | 'usageMetadata' | 'modelVersion' | 'responseId' | 'createTime' | 'promptFeedback'>
> & {
  error?: Status;
};

type Listed<C extends Content> = Omit<C, 'parts'> & { parts?: Part[] };

/**
 * The request as the decoder reads it: the schema takes `contents` and a turn's `parts` as one
 * object or a list (as Google does), and camel-case.ts has made lists of them before decoding.
 */
export type GeminiListedRequest = Omit<GeminiRequest, 'contents' | 'systemInstruction'> & {
  contents: Listed<Content>[];
  systemInstruction?: Listed<Content>;
};
export type GeminiListedContent = Listed<Content>;
