// A mock provider that speaks all six protocols: it recognises the protocol by the path, checks
// the gateway's request against that protocol's schema, and answers in that protocol's wire form,
// stream or not. The answers are encoded by the codecs' own encoders from one fixed IR reply; the
// codecs' SDK tests are what establish that those encoders write what the official SDKs read.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ValidateFunction } from 'ajv';
import { EVENTSTREAM_HEADERS } from '../../server/framing/eventstream-frame.ts';
import { SSE_HEADERS } from '../../server/framing/sse-format.ts';
import { WireBatch } from '../../server/framing/wire-chunks.ts';
import { gatewayError, type ChatResponse, type ProtocolId, type StreamEvent } from '../../server/ir/index.ts';
import { codecFor } from '../../server/protocols/registry.ts';
import { VALIDATORS } from './validators.ts';

export interface SixProtocolUpstream {
  readonly url: string;
  /** Requests whose body broke the protocol's request schema (should stay empty). */
  readonly schemaViolations: string[];
  close(): Promise<void>;
}

export function protocolOfPath(path: string): ProtocolId | undefined {
  if (path.endsWith('/chat/completions')) return 'openai';
  if (path.endsWith('/responses')) return 'responses';
  if (path.endsWith('/v1/messages')) return 'anthropic';
  if (/:(stream)?[gG]enerateContent/.test(path)) return 'gemini';
  if (/\/converse(-stream)?$/.test(path)) return 'bedrock';
  if (path.endsWith('/v2/chat')) return 'cohere';
  return undefined;
}

export const REPLY_TEXT = (protocol: ProtocolId) => `pong from ${protocol}`;

function reply(protocol: ProtocolId): ChatResponse {
  return {
    id: `resp_${protocol}`, model: `upstream-${protocol}`,
    content: [{ type: 'text', text: REPLY_TEXT(protocol) }],
    finish: { reason: 'stop', raw: null },
    usage: { inputTokens: 5, outputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
  };
}

function events(protocol: ProtocolId): StreamEvent[] {
  const r = reply(protocol);
  const [first, second] = [REPLY_TEXT(protocol).slice(0, 5), REPLY_TEXT(protocol).slice(5)];
  return [
    { type: 'message_start', id: r.id, model: r.model },
    { type: 'block_start', index: 0, block: { type: 'text' } },
    { type: 'block_delta', index: 0, delta: { type: 'text', text: first } },
    { type: 'block_delta', index: 0, delta: { type: 'text', text: second } },
    { type: 'block_stop', index: 0 },
    { type: 'finish', finish: r.finish },
    { type: 'usage', usage: r.usage! },
    { type: 'message_stop' },
  ];
}

export interface SixProtocolUpstreamOptions {
  /**
   * Answer a body that is not JSON or breaks the protocol's schema with a 400 in that protocol's
   * error shape, as a real provider does (the fuzz suite); default: record it and answer anyway.
   */
  readonly refuseInvalid?: boolean;
}

function parseJson(bytes: Buffer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(bytes.toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : undefined;
  } catch {
    return undefined;
  }
}

export async function startSixProtocolUpstream(options: SixProtocolUpstreamOptions = {}): Promise<SixProtocolUpstream> {
  const schemaViolations: string[] = [];
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
      const body = parseJson(Buffer.concat(chunks));
      const validate: ValidateFunction = VALIDATORS[protocol].request;
      if (body === undefined || !validate(body)) {
        schemaViolations.push(`${protocol} ${path}: ${body === undefined ? 'not JSON' : JSON.stringify(validate.errors)}`);
        if (options.refuseInvalid === true || body === undefined) {
          const refusal = codec.encodeError(gatewayError('invalid_request', 'the request does not match this API', { code: 'invalid_request' }));
          res.writeHead(refusal.status, refusal.headers).end(refusal.body);
          return;
        }
      }
      const stream = body.stream === true || path.includes(':streamGenerateContent') || path.endsWith('/converse-stream');
      if (!stream) {
        const out = JSON.stringify(codec.encodeResponse(reply(protocol), { streamUsage: true }).body);
        res.writeHead(200, { 'content-type': 'application/json' }).end(out);
        return;
      }
      const encoder = codec.createStreamEncoder({ streamUsage: true, jsonArrayStream: protocol === 'gemini' && !path.includes('alt=sse') });
      const batch = new WireBatch();
      for (const event of events(protocol)) batch.add(encoder.encode(event));
      res.writeHead(200, protocol === 'bedrock' ? { ...EVENTSTREAM_HEADERS } : { ...SSE_HEADERS }).end(batch.take());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    schemaViolations,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
