import type { ChatResponse } from '../../ir/index.ts';
import type { ClientContext, EncodedResponse, TranslationWarning } from '../codec.ts';
import { freeformInput } from '../shared/freeform-tool.ts';
import { dropped } from '../shared/warnings.ts';
import { encodeFinishReason } from './finish-reason.ts';
import { foreignReasoning } from './reasoning-item.ts';
import { carriableThinking } from '../shared/thinking-carrier.ts';
import { itemId, responseObject } from './response-object.ts';
import type { ResponsesOutputItem, ResponsesOutputMessage } from './wire.ts';
import { idWithSignature } from '../shared/signature-carrier.ts';

/**
 * IR response to the Response a client expects. Text blocks in a row share one message item (as
 * refusal parts when the model refused); each tool call is a function_call item whose call_id is
 * the IR id. Reasoning is shown only when OpenAI issued it: a client replays reasoning items to
 * OpenAI, which cannot continue from another provider's thinking.
 */
export function encodeResponse(response: ChatResponse, client?: ClientContext): EncodedResponse {
  const warnings: TranslationWarning[] = [];
  const output: ResponsesOutputItem[] = [];
  const refused = response.finish.reason === 'refusal';
  // The last message of a response cut short (max_output_tokens, content filter) is itself incomplete.
  const messageStatus = encodeFinishReason(response.finish).status === 'incomplete' ? 'incomplete' : 'completed';
  let message: ResponsesOutputMessage | undefined;
  response.content.forEach((block, i) => {
    if (block.type === 'text') {
      if (message === undefined) {
        message = { type: 'message', id: itemId('msg', response.id, output.length), role: 'assistant', status: messageStatus, content: [] };
        output.push(message);
      }
      message.content.push(refused ? { type: 'refusal', refusal: block.text } : { type: 'output_text', text: block.text, annotations: [] });
      return;
    }
    message = undefined;
    const carried = block.type === 'reasoning' ? carriableThinking(block) : undefined;
    if (block.type === 'tool_call' && client?.freeformTools?.has(block.name) === true) {
      // A call of a freeform (custom) tool: its `input` argument is the raw text the client expects;
      // a Gemini signature rides in its call_id as in a function call's.
      output.push({
        type: 'custom_tool_call',
        id: itemId('ctc', response.id, output.length),
        call_id: idWithSignature(block.id, block.signature),
        name: block.name,
        input: freeformInput(block.arguments),
      });
    } else if (block.type === 'tool_call') {
      output.push({
        type: 'function_call',
        id: itemId('fc', response.id, output.length),
        call_id: idWithSignature(block.id, block.signature),
        name: block.name,
        arguments: block.arguments,
        status: 'completed',
      });
    } else if (block.type === 'reasoning' && carried !== undefined) {
      // Claude's signed thinking, carried so that the client sends it back (shared/thinking-carrier.ts).
      output.push({
        type: 'reasoning',
        id: itemId('rs', response.id, output.length),
        summary: block.text === '' ? [] : [{ type: 'summary_text', text: block.text }],
        encrypted_content: carried,
      });
    } else if (block.type === 'reasoning' && block.origin === 'responses') {
      output.push({
        type: 'reasoning',
        id: block.id ?? itemId('rs', response.id, output.length),
        summary: block.text === '' ? [] : [{ type: 'summary_text', text: block.text }],
        ...(block.redacted !== undefined && { encrypted_content: block.redacted }),
      });
    } else {
      warnings.push(dropped(`content[${i}]`, block.type === 'reasoning' ? foreignReasoning(block.origin) : `${block.type} block`));
    }
  });
  const body = responseObject({
    id: response.id,
    model: response.model,
    createdAt: response.created ?? Math.floor(Date.now() / 1000),
    ending: encodeFinishReason(response.finish),
    output,
    usage: response.usage,
  });
  return { body: body as unknown as Record<string, unknown>, warnings };
}
