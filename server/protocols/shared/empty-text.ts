import type { ContentBlock } from '../../ir/index.ts';

/**
 * A text block with nothing in it and nothing riding on it. OpenAI clients send them freely
 * (`content: [{type: "text", text: ""}]` beside tool calls, an empty refusal); Anthropic and Bedrock
 * refuse an empty text block and Gemini an empty part, so their encoders leave such blocks out (and a
 * turn left with no blocks at all), which loses nothing. A Gemini text part that carries a
 * `thoughtSignature` is not empty: Gemini issues signatures on empty parts.
 */
export function isEmptyText(block: ContentBlock): boolean {
  return block.type === 'text' && block.text === '' && block.signature === undefined;
}
