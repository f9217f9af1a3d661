import { asksForTool, demoReplyText } from './echo-text.ts';
import { errorReply } from './error-reply.ts';
import { estimateTokens } from './estimate-tokens.ts';
import type { HttpReply } from './http-reply.ts';
import { openaiChatCompletion, openaiChatStreamEvents, type OpenAIToolCallSpec, type ReplySpec } from './openai-replies.ts';
import { randomId } from './random-id.ts';
import { finalUserText, isRecord, lastUserText, promptText } from './request-text.ts';

/** The demo's answer to a Chat Completions request body (already parsed from JSON). */
export function openaiEchoReply(body: unknown): HttpReply {
  if (!isRecord(body) || !Array.isArray(body.messages)) {
    return errorReply('openai', 'invalid_request', "Missing required parameter: 'messages'.");
  }
  const messages: unknown[] = body.messages;
  const toolCall = requestedToolCall(body.tools, messages);
  const text = toolCall ? undefined : demoReplyText(lastUserText(messages));
  const spec: ReplySpec = {
    id: randomId('chatcmpl-'),
    model: typeof body.model === 'string' ? body.model : 'demo',
    ...(toolCall ? { toolCalls: [toolCall] } : { text }),
    usage: {
      prompt_tokens: estimateTokens(promptText(messages)),
      completion_tokens: Math.max(1, estimateTokens(text ?? `${toolCall?.name}${toolCall?.arguments}`)),
    },
  };

  const headers = { 'x-request-id': randomId('req_') };
  if (body.stream === true) {
    const includeUsage = isRecord(body.stream_options) && body.stream_options.include_usage === true;
    return { status: 200, headers, events: openaiChatStreamEvents(spec, { includeUsage }) };
  }
  return { status: 200, headers, json: openaiChatCompletion(spec) };
}

/** A call to the first function tool, when the user's final message asks for a tool. */
function requestedToolCall(tools: unknown, messages: unknown[]): OpenAIToolCallSpec | undefined {
  const finalText = finalUserText(messages);
  if (finalText === undefined || !asksForTool(finalText) || !Array.isArray(tools)) return undefined;
  for (const tool of tools) {
    if (isRecord(tool) && tool.type === 'function' && isRecord(tool.function) && typeof tool.function.name === 'string') {
      return { id: randomId('call_'), name: tool.function.name, arguments: '{}' };
    }
  }
  return undefined;
}
