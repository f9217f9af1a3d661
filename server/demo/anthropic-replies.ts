// Real Anthropic Messages wire output (message objects, stream events, error bodies)
// built from a small description, for the demo provider and the test suite's mock upstream.
import { sseEvent } from './sse.ts';
import { splitIntoPieces } from './split-pieces.ts';

export interface AnthropicToolUseSpec {
  id: string;
  name: string;
  input: Record<string, unknown>;
}

export interface AnthropicUsageSpec {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
}

export interface ReplySpec {
  id: string;
  model: string;
  text?: string;
  thinking?: { text: string; signature: string };
  toolUses?: AnthropicToolUseSpec[];
  /** Defaults to 'tool_use' when there are tool uses, else 'end_turn'. */
  stopReason?: string;
  stopSequence?: string | null;
  usage?: AnthropicUsageSpec;
}
export type AnthropicReplySpec = ReplySpec;

export interface AnthropicStreamOptions {
  /** How many deltas the text, the thinking and each tool input are split into; default 3. */
  textPieces?: number;
}

export type AnthropicContentBlock =
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

export interface AnthropicUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  output_tokens: number;
  service_tier: 'standard';
}

export interface AnthropicMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: AnthropicContentBlock[];
  stop_reason: string | null;
  stop_sequence: string | null;
  usage: AnthropicUsage;
}

export interface AnthropicErrorBody {
  type: 'error';
  error: { type: string; message: string };
  request_id?: string;
}

const DEFAULT_TEXT_PIECES = 3;

/** Content blocks in the order the API emits them: thinking, text, then tool uses. */
function contentOf(spec: ReplySpec): AnthropicContentBlock[] {
  const blocks: AnthropicContentBlock[] = [];
  if (spec.thinking) {
    blocks.push({ type: 'thinking', thinking: spec.thinking.text, signature: spec.thinking.signature });
  }
  if (spec.text !== undefined) blocks.push({ type: 'text', text: spec.text });
  for (const use of spec.toolUses ?? []) {
    blocks.push({ type: 'tool_use', id: use.id, name: use.name, input: use.input });
  }
  return blocks;
}

export function anthropicMessage(spec: ReplySpec): AnthropicMessage {
  return {
    id: spec.id,
    type: 'message',
    role: 'assistant',
    model: spec.model,
    content: contentOf(spec),
    stop_reason: stopReasonOf(spec),
    stop_sequence: spec.stopSequence ?? null,
    usage: wireUsage(spec.usage, spec.usage?.output_tokens ?? 0),
  };
}

/** The SSE events of a streamed message, in the API's order, ending with message_stop. */
export function anthropicStreamEvents(spec: ReplySpec, options: AnthropicStreamOptions = {}): string[] {
  const pieces = options.textPieces ?? DEFAULT_TEXT_PIECES;
  // message_start reports output_tokens 1 like the API; the real count comes in message_delta.
  const startMessage: AnthropicMessage = {
    ...anthropicMessage(spec),
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: wireUsage(spec.usage, 1),
  };
  const events = [sseEvent('message_start', { type: 'message_start', message: startMessage }), sseEvent('ping', { type: 'ping' })];
  contentOf(spec).forEach((block, index) => events.push(...blockEvents(block, index, pieces)));
  events.push(
    sseEvent('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: stopReasonOf(spec), stop_sequence: spec.stopSequence ?? null },
      usage: { output_tokens: spec.usage?.output_tokens ?? 0 },
    }),
    sseEvent('message_stop', { type: 'message_stop' }),
  );
  return events;
}

export function anthropicErrorBody(type: string, message: string, requestId?: string): AnthropicErrorBody {
  const body: AnthropicErrorBody = { type: 'error', error: { type, message } };
  if (requestId !== undefined) body.request_id = requestId;
  return body;
}

/** A mid-stream error as the API sends it after a 200 (e.g. overloaded_error). */
export function anthropicStreamErrorEvent(type: string, message: string): string {
  return sseEvent('error', anthropicErrorBody(type, message));
}

function blockEvents(block: AnthropicContentBlock, index: number, pieces: number): string[] {
  const delta = (payload: Record<string, unknown>) => sseEvent('content_block_delta', { type: 'content_block_delta', index, delta: payload });
  const start = (contentBlock: AnthropicContentBlock) => sseEvent('content_block_start', { type: 'content_block_start', index, content_block: contentBlock });
  const stop = sseEvent('content_block_stop', { type: 'content_block_stop', index });

  switch (block.type) {
    case 'thinking':
      return [
        start({ type: 'thinking', thinking: '', signature: '' }),
        ...splitIntoPieces(block.thinking, pieces).map((thinking) => delta({ type: 'thinking_delta', thinking })),
        delta({ type: 'signature_delta', signature: block.signature }),
        stop,
      ];
    case 'text':
      return [start({ type: 'text', text: '' }), ...splitIntoPieces(block.text, pieces).map((text) => delta({ type: 'text_delta', text })), stop];
    case 'tool_use':
      return [
        start({ type: 'tool_use', id: block.id, name: block.name, input: {} }),
        ...splitIntoPieces(JSON.stringify(block.input), pieces).map((partial_json) => delta({ type: 'input_json_delta', partial_json })),
        stop,
      ];
  }
}

function wireUsage(usage: AnthropicUsageSpec | undefined, outputTokens: number): AnthropicUsage {
  return {
    input_tokens: usage?.input_tokens ?? 0,
    cache_creation_input_tokens: usage?.cache_creation_input_tokens ?? 0,
    cache_read_input_tokens: usage?.cache_read_input_tokens ?? 0,
    output_tokens: outputTokens,
    service_tier: 'standard',
  };
}

function stopReasonOf(spec: ReplySpec): string {
  return spec.stopReason ?? ((spec.toolUses ?? []).length > 0 ? 'tool_use' : 'end_turn');
}
