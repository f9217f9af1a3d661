import { anthropicMessage, anthropicStreamEvents, type AnthropicToolUseSpec, type ReplySpec } from './anthropic-replies.ts';
import { asksForTool, demoReplyText } from './echo-text.ts';
import { errorReply } from './error-reply.ts';
import { estimateTokens } from './estimate-tokens.ts';
import type { HttpReply } from './http-reply.ts';
import { randomId } from './random-id.ts';
import { finalUserText, isRecord, lastUserText, promptText } from './request-text.ts';

/** The demo's answer to a Messages request body (already parsed from JSON). */
export function anthropicEchoReply(body: unknown): HttpReply {
  if (!isRecord(body) || !Array.isArray(body.messages)) {
    return errorReply('anthropic', 'invalid_request', 'messages: Field required');
  }
  const messages: unknown[] = body.messages;
  const toolUse = requestedToolUse(body.tools, messages);
  const text = toolUse ? undefined : demoReplyText(lastUserText(messages));
  const spec: ReplySpec = {
    id: randomId('msg_'),
    model: typeof body.model === 'string' ? body.model : 'demo',
    ...(toolUse ? { toolUses: [toolUse] } : { text }),
    usage: {
      input_tokens: estimateTokens(promptText(messages, body.system)),
      output_tokens: Math.max(1, estimateTokens(text ?? `${toolUse?.name}{}`)),
    },
  };

  const headers = { 'request-id': randomId('req_') };
  if (body.stream === true) return { status: 200, headers, events: anthropicStreamEvents(spec) };
  return { status: 200, headers, json: anthropicMessage(spec) };
}

/** A use of the first tool, when the user's final message asks for a tool. */
function requestedToolUse(tools: unknown, messages: unknown[]): AnthropicToolUseSpec | undefined {
  const finalText = finalUserText(messages);
  if (finalText === undefined || !asksForTool(finalText) || !Array.isArray(tools)) return undefined;
  for (const tool of tools) {
    if (isRecord(tool) && typeof tool.name === 'string') {
      return { id: randomId('toolu_'), name: tool.name, input: {} };
    }
  }
  return undefined;
}
