// Real OpenAI Chat Completions wire output (response objects, stream events, error bodies)
// built from a small description, for the demo provider and the test suite's mock upstream.
import { sseData, SSE_DONE } from './sse.ts';
import { splitIntoPieces } from './split-pieces.ts';

export interface OpenAIToolCallSpec {
  id: string;
  name: string;
  /** The arguments as the model wrote them: a JSON string, not an object. */
  arguments: string;
}

export interface OpenAIUsageSpec {
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens?: number;
  reasoning_tokens?: number;
}

export interface ReplySpec {
  id: string;
  model: string;
  text?: string;
  toolCalls?: OpenAIToolCallSpec[];
  /** Defaults to 'tool_calls' when there are tool calls, else 'stop'. */
  finishReason?: string;
  usage?: OpenAIUsageSpec;
  /** Unix seconds; defaults to now. */
  created?: number;
}
export type OpenAIReplySpec = ReplySpec;

export interface OpenAIStreamOptions {
  /** Mirrors the request's `stream_options.include_usage`. */
  includeUsage: boolean;
  /** How many deltas the text (and each tool call's arguments) is split into; default 3. */
  textPieces?: number;
}

export interface ChatCompletionToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatCompletionUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number; audio_tokens: number };
  completion_tokens_details: {
    reasoning_tokens: number;
    audio_tokens: number;
    accepted_prediction_tokens: number;
    rejected_prediction_tokens: number;
  };
}

export interface ChatCompletionMessage {
  role: 'assistant';
  content: string | null;
  refusal: null;
  annotations: [];
  tool_calls?: ChatCompletionToolCall[];
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: [{ index: 0; message: ChatCompletionMessage; finish_reason: string; logprobs: null }];
  usage: ChatCompletionUsage;
  service_tier: 'default';
  system_fingerprint: string;
}

export interface ChatCompletionChunkToolCall {
  index: number;
  id?: string;
  type?: 'function';
  function: { name?: string; arguments: string };
}

export interface ChatCompletionChunkDelta {
  role?: 'assistant';
  content?: string | null;
  refusal?: null;
  tool_calls?: ChatCompletionChunkToolCall[];
}

export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  service_tier: 'default';
  system_fingerprint: string;
  choices: { index: 0; delta: ChatCompletionChunkDelta; logprobs: null; finish_reason: string | null }[];
  usage?: ChatCompletionUsage | null;
}

export interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

const SYSTEM_FINGERPRINT = 'fp_demo0001';
const DEFAULT_TEXT_PIECES = 3;

export function openaiChatCompletion(spec: ReplySpec): ChatCompletion {
  const toolCalls = spec.toolCalls ?? [];
  const message: ChatCompletionMessage = {
    role: 'assistant',
    content: spec.text ?? (toolCalls.length > 0 ? null : ''),
    refusal: null,
    annotations: [],
  };
  if (toolCalls.length > 0) message.tool_calls = toolCalls.map(wireToolCall);
  return {
    id: spec.id,
    object: 'chat.completion',
    created: createdOf(spec),
    model: spec.model,
    choices: [{ index: 0, message, finish_reason: finishReasonOf(spec), logprobs: null }],
    usage: wireUsage(spec.usage),
    service_tier: 'default',
    system_fingerprint: SYSTEM_FINGERPRINT,
  };
}

/** The SSE events of a streamed completion, in OpenAI's order, ending with `data: [DONE]`. */
export function openaiChatStreamEvents(spec: ReplySpec, options: OpenAIStreamOptions): string[] {
  const pieces = options.textPieces ?? DEFAULT_TEXT_PIECES;
  const created = createdOf(spec);
  const chunk = (delta: ChatCompletionChunkDelta, finishReason: string | null = null): ChatCompletionChunk => ({
    ...chunkEnvelope(spec, created),
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    // With include_usage OpenAI sends `usage: null` on every chunk but the last.
    ...(options.includeUsage ? { usage: null } : {}),
  });

  const chunks: ChatCompletionChunk[] = [chunk({ role: 'assistant', content: '', refusal: null })];
  for (const piece of splitIntoPieces(spec.text ?? '', pieces)) chunks.push(chunk({ content: piece }));
  (spec.toolCalls ?? []).forEach((call, index) => {
    chunks.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
    for (const piece of splitIntoPieces(call.arguments, pieces)) {
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  chunks.push(chunk({}, finishReasonOf(spec)));
  if (options.includeUsage) {
    chunks.push({ ...chunkEnvelope(spec, created), choices: [], usage: wireUsage(spec.usage) });
  }
  return [...chunks.map(sseData), SSE_DONE];
}

export function openaiErrorBody(message: string, type: string, code: string | null, param: string | null = null): OpenAIErrorBody {
  return { error: { message, type, param, code } };
}

/** A mid-stream error as OpenAI sends it after a 200: a `data:` event whose payload has `error`. */
export function openaiStreamErrorEvent(message: string, type: string, code: string | null): string {
  return sseData(openaiErrorBody(message, type, code));
}

function chunkEnvelope(spec: ReplySpec, created: number) {
  return {
    id: spec.id,
    object: 'chat.completion.chunk' as const,
    created,
    model: spec.model,
    service_tier: 'default' as const,
    system_fingerprint: SYSTEM_FINGERPRINT,
  };
}

function wireToolCall(call: OpenAIToolCallSpec): ChatCompletionToolCall {
  return { id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } };
}

function wireUsage(usage: OpenAIUsageSpec | undefined): ChatCompletionUsage {
  const prompt = usage?.prompt_tokens ?? 0;
  const completion = usage?.completion_tokens ?? 0;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: usage?.cached_tokens ?? 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: usage?.reasoning_tokens ?? 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

function finishReasonOf(spec: ReplySpec): string {
  return spec.finishReason ?? ((spec.toolCalls ?? []).length > 0 ? 'tool_calls' : 'stop');
}

function createdOf(spec: ReplySpec): number {
  return spec.created ?? Math.floor(Date.now() / 1000);
}
