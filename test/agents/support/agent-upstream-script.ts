// The scripted provider behind the coding-agent sessions, one script for every egress protocol.
// It reads the request as that protocol's wire JSON, keeps the rules the real provider keeps for
// signed reasoning (refusing with 400 as the provider does), and answers four turns: two parallel
// reads, a test run, an edit, then the final text. Each turn carries the protocol's own reasoning:
// signed thinking (Anthropic, Bedrock), encrypted reasoning (Responses), reasoning_content (OpenAI),
// thinking text (Cohere), a thought part and a signed function call (Gemini 3).
import type { ChatResponse, ContentBlock, ProtocolId } from '../../../server/ir/index.ts';
import { codecFor } from '../../../server/protocols/registry.ts';
import type { SeenRequest } from './scripted-upstream.ts';

/** The tools each agent declares for the four steps, and the arguments the model gives them. */
export interface AgentTools {
  readonly read: (path: string) => { name: string; args: unknown };
  readonly test: { name: string; args: unknown };
  readonly edit: { name: string; args: unknown };
}

export const FINAL = 'Fixed: the token check now compares expiry in seconds; all auth tests pass.';

/** Gemini 3's function-call signatures: base64 with the whole alphabet, as real ones are. */
export const geminiSignature = (turn: number) => Buffer.from(`gemini-3 signature of turn ${turn} \xfb\xff`.repeat(8), 'latin1').toString('base64');
export const claudeSignature = (p: ProtocolId, turn: number) => `${p}-thinking-signature-turn-${turn}`;

export interface AgentUpstreamState {
  /** What went wrong, as the real provider would have refused it (each one fails the test). */
  readonly refusals: string[];
}

/** A refusal in the provider's own error shape. */
function refuse(protocol: ProtocolId, message: string, param?: string): { status: number; body: unknown } {
  if (protocol === 'gemini') return { status: 400, body: { error: { code: 400, message, status: 'INVALID_ARGUMENT' } } };
  if (protocol === 'anthropic') return { status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message } } };
  if (protocol === 'openai' || protocol === 'responses')
    return { status: 400, body: { error: { message, type: 'invalid_request_error', param: param ?? null, code: 'unsupported_value' } } };
  return { status: 400, body: { message } };
}

interface Problem {
  message: string;
  param?: string;
}

export function agentScript(tools: AgentTools, state: AgentUpstreamState) {
  return (seen: SeenRequest): ChatResponse | { status: number; body: unknown } => {
    const p = seen.protocol;
    const ir = codecFor(p)!.decodeRequest(seen.json, p === 'gemini' || p === 'bedrock' ? { pathModel: 'm', pathStream: seen.path.includes('stream') } : {});
    const results = ir.messages.flatMap((m) => m.content).filter((b) => b.type === 'tool_result').length;
    const turn = ({ 0: 0, 2: 1, 3: 2, 4: 3 } as Record<number, number>)[results];
    if (turn === undefined) return refuse(p, `unexpected history: ${results} tool results`);

    const problem =
      p === 'gemini'
        ? unsignedGeminiCall(seen.json)
        : p === 'anthropic' || p === 'bedrock'
          ? unsignedClaudeLoop(seen.json, p)
          : p === 'openai' || p === 'responses'
            ? openAiReasoningSampling(seen.json)
            : undefined;
    if (problem !== undefined) {
      state.refusals.push(`${p}: ${problem.message}`);
      return refuse(p, problem.message, problem.param);
    }

    const calls: { name: string; args: unknown }[] =
      turn === 0 ? [tools.read('src/auth.ts'), tools.read('test/auth.test.ts')] : turn === 1 ? [tools.test] : turn === 2 ? [tools.edit] : [];
    const content: ContentBlock[] = [reasoningOf(p, turn)];
    calls.forEach((call, k) =>
      content.push({
        type: 'tool_call',
        id: `call_t${turn}_${k}`,
        name: call.name,
        arguments: JSON.stringify(call.args),
        // Gemini signs the first call of each step.
        ...(p === 'gemini' && k === 0 && { signature: { origin: 'gemini' as const, value: geminiSignature(turn) } }),
      }),
    );
    if (calls.length === 0) content.push({ type: 'text', text: FINAL });
    return {
      id: `resp_${p}_${turn}`,
      model: `model-${p}`,
      content,
      finish: { reason: calls.length > 0 ? 'tool_calls' : 'stop', raw: null },
      usage: { inputTokens: 900, outputTokens: 120, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 80 },
    };
  };
}

function reasoningOf(p: ProtocolId, turn: number): ContentBlock {
  const text = `Step ${turn}: deciding what to look at next.`;
  if (p === 'anthropic' || p === 'bedrock') return { type: 'reasoning', text, origin: p, signature: claudeSignature(p, turn) };
  if (p === 'responses') return { type: 'reasoning', text, origin: p, id: `rs_${turn}`, redacted: `encrypted-reasoning-${turn}` };
  return { type: 'reasoning', text, origin: p };
}

type Json = Record<string, any>;

/**
 * OpenAI's reasoning models (o-series, GPT-5 but gpt-5-chat) take sampling at its defaults only,
 * in Chat Completions and Responses alike (GPT-5.1 on also with reasoning effort "none").
 */
function openAiReasoningSampling(body: Json): Problem | undefined {
  if (!/^(?:o[134]|gpt-5(?!-chat))/.test(String(body.model))) return undefined;
  if ((body.reasoning_effort ?? body.reasoning?.effort) === 'none') return undefined;
  for (const [param, fallback] of [
    ['temperature', 1],
    ['top_p', 1],
  ] as const) {
    const value = body[param] as unknown;
    if (value !== undefined && value !== fallback) {
      return {
        param,
        message: `Unsupported value: '${param}' does not support ${String(value)} with this model. Only the default (${fallback}) value is supported.`,
      };
    }
  }
  return undefined;
}

/** Gemini 3: every function call it signed must come back with that signature. */
function unsignedGeminiCall(body: Json): Problem | undefined {
  let turn = 0;
  for (const content of body.contents as Json[]) {
    if (content.role !== 'model') continue;
    const first = (content.parts as Json[]).find((part) => part.functionCall !== undefined);
    if (first !== undefined && first.thoughtSignature !== geminiSignature(turn)) {
      return { message: `Function call ${first.functionCall.name} in the ${turn + 1}. model turn is missing its thought_signature` };
    }
    if (first !== undefined) turn++;
  }
  return undefined;
}

/**
 * Claude with thinking on: no temperature but 1, and the last assistant turn of a tool loop must
 * start with the signed thinking block Claude issued for it ("Expected `thinking` or
 * `redacted_thinking`, but found `tool_use`").
 */
function unsignedClaudeLoop(body: Json, p: 'anthropic' | 'bedrock'): Problem | undefined {
  const thinkingOn = p === 'anthropic' ? body.thinking?.type === 'enabled' : body.additionalModelRequestFields?.thinking?.type === 'enabled';
  if (!thinkingOn) return undefined;
  const temperature = p === 'anthropic' ? body.temperature : body.inferenceConfig?.temperature;
  if (temperature !== undefined && temperature !== 1) return { message: '`temperature` may only be set to 1 when thinking is enabled' };
  const assistants = (body.messages as Json[]).filter((m) => m.role === 'assistant');
  const last = assistants.at(-1);
  if (last === undefined) return undefined;
  const blocks = last.content as Json[];
  const first = blocks[0];
  const signature = p === 'anthropic' ? (first?.type === 'thinking' ? first.signature : undefined) : first?.reasoningContent?.reasoningText?.signature;
  if (signature !== claudeSignature(p, assistants.length - 1)) {
    return {
      message:
        'Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a thinking block',
    };
  }
  return undefined;
}
