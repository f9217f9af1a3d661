// A mock provider, in all six protocols, that bills as much output as the request allows: it
// reports usage of exactly the request's output-token limit, and a great deal when the request
// sets none (as a real model asked for a long answer would). What each request carried is kept,
// so tests can check where the limit was (or was not) put.
import type { ChatResponse, ProtocolId, Usage } from '../../server/ir/index.ts';
import { startSixProtocolServer, wantsStream, writeAnswer } from './six-protocol-server.ts';

/** Output tokens billed for a request that sets no limit. */
export const UNLIMITED_OUTPUT_TOKENS = 1_000_000;
export const INPUT_TOKENS = 5;

export interface LimitRequest {
  readonly protocol: ProtocolId;
  readonly path: string;
  readonly body: Record<string, unknown>;
  /** The output-token limit the request carried, read where its protocol keeps it. */
  readonly limit: number | undefined;
}

export interface OutputLimitUpstream {
  readonly url: string;
  readonly requests: LimitRequest[];
  close(): Promise<void>;
}

/** Where each protocol's request carries the limit, as that provider's API documents it. */
export function limitOf(protocol: ProtocolId, body: Record<string, unknown>): number | undefined {
  const member = (object: unknown, key: string) => (typeof object === 'object' && object !== null ? (object as Record<string, unknown>)[key] : undefined);
  const value = {
    openai: () => body.max_completion_tokens ?? body.max_tokens,
    responses: () => body.max_output_tokens,
    anthropic: () => body.max_tokens,
    gemini: () => member(body.generationConfig, 'maxOutputTokens'),
    bedrock: () => member(body.inferenceConfig, 'maxTokens'),
    cohere: () => body.max_tokens,
  }[protocol]();
  return typeof value === 'number' ? value : undefined;
}

export async function startOutputLimitUpstream(): Promise<OutputLimitUpstream> {
  const requests: LimitRequest[] = [];
  const server = await startSixProtocolServer((call, res) => {
    const { protocol, path } = call;
    const body = JSON.parse(call.body.toString('utf8')) as Record<string, unknown>;
    const limit = limitOf(protocol, body);
    requests.push({ protocol, path, body, limit });
    const usage: Usage = {
      inputTokens: INPUT_TOKENS,
      outputTokens: limit ?? UNLIMITED_OUTPUT_TOKENS,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
    };
    const reply: ChatResponse = {
      id: `resp_${protocol}`,
      model: `upstream-${protocol}`,
      content: [{ type: 'text', text: 'words' }],
      finish: { reason: 'length', raw: null },
      usage,
    };
    writeAnswer(res, call, reply, wantsStream(call, body));
  });
  return { url: server.url, requests, close: () => server.close() };
}
