// A stream that is under way across a configuration change: the mock upstream sends two pieces,
// stalls, then sends the rest. Reload tests start it before the change and check after that it
// finished whole, on the configuration it started with.
import type OpenAI from 'openai';
import { openaiChatStreamEvents } from '../../server/demo/openai-replies.ts';
import type { MockUpstream } from './mock-upstream.ts';

export const STALLED_STREAM_TEXT = 'one two three four five six';

export interface StalledStream {
  /** Each piece of text with the moment it arrived. */
  readonly pieces: { readonly text: string; readonly at: number }[];
  /** Resolves when the stream has ended. */
  readonly done: Promise<void>;
}

/** Asks `model` (answered upstream as `upstreamModel`) for a stream; resolves once its first piece has arrived, then the upstream stalls `pauseMs`. */
export async function stalledStream(upstream: MockUpstream, sdk: OpenAI, model: string, upstreamModel: string, pauseMs = 6000): Promise<StalledStream> {
  upstream.enqueue({
    events: openaiChatStreamEvents(
      { id: 'slow', model: upstreamModel, text: STALLED_STREAM_TEXT, usage: { prompt_tokens: 5, completion_tokens: 6 } },
      { includeUsage: true, textPieces: 6 },
    ),
    pauseAfter: 2,
    pauseMs,
  });
  const stream = await sdk.chat.completions.create({ model, messages: [{ role: 'user', content: 'slow' }], stream: true });
  const pieces: { text: string; at: number }[] = [];
  let firstPiece: () => void = () => {};
  const begun = new Promise<void>((resolve) => (firstPiece = resolve));
  const done = (async () => {
    for await (const chunk of stream) {
      const text = chunk.choices[0]?.delta.content ?? '';
      if (text !== '') pieces.push({ text, at: Date.now() });
      firstPiece();
    }
  })();
  await Promise.race([begun, done]);
  return { pieces, done };
}
