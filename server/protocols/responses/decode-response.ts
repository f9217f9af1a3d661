import type { ChatResponse, ContentBlock } from '../../ir/index.ts';
import { decodeFinishReason } from './finish-reason.ts';
import { reasoningBlock } from './reasoning-item.ts';
import { decodeUsage } from './usage.ts';
import type { ResponsesOutputMessage, ResponsesReasoningItem, ResponsesResponse } from './wire.ts';

/**
 * A Response (upstream answer) to IR. Each message part becomes a text block (a refusal part too,
 * and then the finish says refusal); a function call's IR id is its `call_id`, the id its output
 * must name. Built-in tool items run at OpenAI and have no IR form, so they are skipped.
 */
export function decodeResponse(body: Record<string, unknown>): ChatResponse {
  const response = body as unknown as ResponsesResponse;
  const content: ContentBlock[] = [];
  let hasRefusal = false;
  let hasFunctionCall = false;
  for (const item of response.output) {
    if (item.type === 'message') {
      for (const part of (item as ResponsesOutputMessage).content) {
        if (part.type === 'output_text') content.push({ type: 'text', text: (part as { text: string }).text });
        else if (part.type === 'refusal') {
          hasRefusal = true;
          content.push({ type: 'text', text: (part as { refusal: string }).refusal });
        }
      }
    } else if (item.type === 'function_call') {
      hasFunctionCall = true;
      const call = item as { call_id: string; name: string; arguments: string };
      content.push({ type: 'tool_call', id: call.call_id, name: call.name, arguments: call.arguments });
    } else if (item.type === 'reasoning') {
      content.push(reasoningBlock(item as ResponsesReasoningItem));
    }
  }
  return {
    id: response.id,
    model: response.model,
    content,
    finish: decodeFinishReason({ status: response.status, incompleteReason: response.incomplete_details?.reason, hasFunctionCall, hasRefusal }),
    usage: response.usage ? decodeUsage(response.usage) : null,
    ...(typeof response.created_at === 'number' && { created: response.created_at }),
  };
}
