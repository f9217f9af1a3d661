// A mock provider, in all six protocols, that bills as much output as the request allows: it
// reports usage of exactly the request's output-token limit, and a great deal when the request
// sets none (as a real model asked for a long answer would). What each request carried is kept,
// so tests can check where the limit was (or was not) put.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EVENTSTREAM_HEADERS } from '../../server/framing/eventstream-frame.ts';
import { SSE_HEADERS } from '../../server/framing/sse-format.ts';
import { WireBatch } from '../../server/framing/wire-chunks.ts';
import type { ChatResponse, ProtocolId, StreamEvent, Usage } from '../../server/ir/index.ts';
import { codecFor } from '../../server/protocols/registry.ts';
import { protocolOfPath } from '../matrix/six-protocol-upstream.ts';

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
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '';
      const protocol = protocolOfPath(path.split('?')[0] ?? '');
      const codec = protocol === undefined ? undefined : codecFor(protocol);
      if (protocol === undefined || codec === undefined) {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      const limit = limitOf(protocol, body);
      requests.push({ protocol, path, body, limit });
      const usage: Usage = { inputTokens: INPUT_TOKENS, outputTokens: limit ?? UNLIMITED_OUTPUT_TOKENS, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };
      const reply: ChatResponse = { id: `resp_${protocol}`, model: `upstream-${protocol}`, content: [{ type: 'text', text: 'words' }], finish: { reason: 'length', raw: null }, usage };
      const stream = body.stream === true || path.includes(':streamGenerateContent') || path.endsWith('/converse-stream');
      if (!stream) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(codec.encodeResponse(reply, { streamUsage: true }).body));
        return;
      }
      const events: StreamEvent[] = [
        { type: 'message_start', id: reply.id, model: reply.model },
        { type: 'block_start', index: 0, block: { type: 'text' } },
        { type: 'block_delta', index: 0, delta: { type: 'text', text: 'words' } },
        { type: 'block_stop', index: 0 },
        { type: 'finish', finish: reply.finish },
        { type: 'usage', usage },
        { type: 'message_stop' },
      ];
      const encoder = codec.createStreamEncoder({ streamUsage: true, jsonArrayStream: protocol === 'gemini' && !path.includes('alt=sse') });
      const batch = new WireBatch();
      for (const event of events) batch.add(encoder.encode(event));
      res.writeHead(200, protocol === 'bedrock' ? { ...EVENTSTREAM_HEADERS } : { ...SSE_HEADERS }).end(batch.take());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
