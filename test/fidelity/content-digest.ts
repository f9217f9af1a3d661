// What a translation must carry, as a comparable summary of IR: the texts (system and
// conversation), tool calls (name and parsed arguments), tool results, images and tool names. Roles,
// block boundaries and reasoning are left out: protocols legitimately regroup turns (tool results
// inside user turns), split or join text, and reasoning from another provider is dropped with a
// warning. A translation passes when every item the source has arrives.
import type { ChatRequest, ChatResponse, ContentBlock } from '../../server/ir/index.ts';

export interface ContentDigest {
  /** Settings every protocol has a slot for, where the source set them. */
  readonly settings?: Record<string, unknown>;
  readonly texts: string[];
  readonly toolCalls: string[];
  readonly toolResults: string[];
  readonly images: number;
  readonly tools: string[];
}

function canonical(json: string): string {
  try {
    return JSON.stringify(sortKeys(JSON.parse(json)));
  } catch {
    return json;
  }
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
  );
}

function addBlocks(out: { texts: string[]; toolCalls: string[]; toolResults: string[]; images: number }, blocks: readonly ContentBlock[]): void {
  for (const b of blocks) {
    if (b.type === 'text' && b.text.trim() !== '') out.texts.push(b.text.trim());
    else if (b.type === 'image') out.images++;
    else if (b.type === 'tool_call') out.toolCalls.push(`${b.name}(${canonical(b.arguments === '' ? '{}' : b.arguments)})`);
    else if (b.type === 'tool_result') {
      const text = b.content
        .map((c) => (c.type === 'text' ? c.text : '[image]'))
        .join('')
        .trim();
      out.toolResults.push(canonical(text));
    }
  }
}

export function requestDigest(request: ChatRequest): ContentDigest {
  const out = { texts: [] as string[], toolCalls: [] as string[], toolResults: [] as string[], images: 0 };
  for (const m of request.messages) addBlocks(out, m.content);
  const settings: Record<string, unknown> = {};
  if (request.maxTokens !== undefined) settings.maxTokens = request.maxTokens;
  if (request.temperature !== undefined) settings.temperature = request.temperature;
  if (request.topP !== undefined) settings.topP = request.topP;
  if (request.stopSequences !== undefined && request.stopSequences.length > 0) settings.stop = request.stopSequences;
  // `auto` is every protocol's default: a lane may leave it unsaid.
  if (request.toolChoice !== undefined && request.toolChoice.type !== 'auto') settings.toolChoice = request.toolChoice;
  if (request.responseFormat !== undefined) settings.responseFormat = request.responseFormat.type;
  return { ...out, settings, tools: (request.tools ?? []).map((t) => t.name).sort() };
}

export function responseDigest(response: ChatResponse): ContentDigest {
  const out = { texts: [] as string[], toolCalls: [] as string[], toolResults: [] as string[], images: 0 };
  addBlocks(out, response.content);
  return { ...out, settings: { finish: response.finish.reason }, tools: [] };
}

/**
 * Texts compared joined and without whitespace: a protocol may split one text in several blocks
 * or join several in one, with or without a separator.
 */
export function comparable(d: ContentDigest): Record<string, unknown> {
  return {
    settings: d.settings,
    text: d.texts.join('').replace(/\s+/g, ''),
    toolCalls: d.toolCalls,
    toolResults: d.toolResults.map((r) => r.replace(/\s+/g, '')),
    images: d.images,
    tools: d.tools,
  };
}
