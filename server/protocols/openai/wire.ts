// What the OpenAI Chat Completions schemas (spec/protocols/openai/) cannot say as TypeScript. The
// request, response, chunk, usage and error types are generated from those schemas
// (generated/protocols/openai/) and the codec imports them from there; only this stays by hand.
import type { ChatCompletionChunk, StreamError } from '../../../generated/protocols/openai/stream-event.ts';

/**
 * One stream payload as the decoder reads it. The schema tells a chunk from an in-stream error
 * with if/else on the presence of `error`, which compiles to no union; and since an upstream's
 * stream is not validated, every member of a chunk may be missing.
 */
export type OpenAIStreamPayload = Partial<ChatCompletionChunk> & Partial<StreamError>;
