import type { ChatRequest, ContentBlock } from '../ir/index.ts';

/**
 * Tokens in a body of `bytes` bytes, for when nothing better is known (an unreadable or
 * untranslatable request, an upstream that reported no usage): about four bytes a token, never zero.
 */
export function tokensInBytes(bytes: number): number {
  return Math.max(1, Math.ceil(bytes / 4));
}

/** What a picture is counted as: Anthropic and Gemini charge roughly this for a mid-sized image. */
const TOKENS_PER_IMAGE = 1000;

/**
 * A rough count of a request's input tokens, for lanes whose provider has no count endpoint:
 * about four characters a token (the usual rule of thumb for English and code) over the text,
 * tool calls, tool results, reasoning and tool definitions, plus a flat amount per image.
 * Answers built from it say they are estimates.
 */
export function estimateInputTokens(request: ChatRequest): number {
  let chars = 0;
  let images = 0;
  const block = (b: ContentBlock): void => {
    switch (b.type) {
      case 'text':
      case 'reasoning':
        chars += b.text.length;
        return;
      case 'image':
        images++;
        return;
      case 'tool_call':
        chars += b.name.length + b.arguments.length;
        return;
      case 'tool_result':
        b.content.forEach(block);
        return;
    }
  };
  for (const message of request.messages) {
    chars += 4; // the role and the turn's framing
    message.content.forEach(block);
  }
  for (const tool of request.tools ?? []) chars += tool.name.length + (tool.description?.length ?? 0) + JSON.stringify(tool.parameters ?? {}).length;
  return Math.max(1, Math.ceil(chars / 4) + images * TOKENS_PER_IMAGE);
}
