// What every mock provider that speaks all six protocols shares: it tells the protocol from the
// request path, reads the body whole, and writes an IR reply in that protocol's wire form, streamed
// or not as the request asked, with the codecs' own encoders (the ones the codecs' SDK tests show
// the official SDKs read). The mocks built on it differ only in what they record and answer.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EVENTSTREAM_HEADERS } from '../../server/framing/eventstream-frame.ts';
import { SSE_HEADERS } from '../../server/framing/sse-format.ts';
import { WireBatch } from '../../server/framing/wire-chunks.ts';
import type { ChatResponse, ProtocolId, StreamEvent } from '../../server/ir/index.ts';
import type { ProtocolCodec } from '../../server/protocols/codec.ts';
import { codecFor } from '../../server/protocols/registry.ts';
import { protocolOfPath } from './protocol-routes.ts';
import { embeddingsEndpointFor, embeddingsReply, type EmbeddingsEndpoint } from '../../server/demo/embedding-replies.ts';

/** One request to the mock: its protocol (from the path), the path with its query, and the body. */
export interface ProtocolCall {
  readonly protocol: ProtocolId;
  readonly codec: ProtocolCodec;
  readonly path: string;
  readonly body: Buffer;
}

/** Whether the call asks for a stream: a `stream: true` body, or a streaming path (Gemini, Bedrock). */
export function wantsStream(call: ProtocolCall, json: Record<string, unknown> | undefined): boolean {
  return json?.stream === true || call.path.includes(':streamGenerateContent') || call.path.endsWith('/converse-stream');
}

/** The protocol's codec (every protocol has one; a test that names another is wrong). */
export function codecOf(protocol: ProtocolId): ProtocolCodec {
  const codec = codecFor(protocol);
  if (codec === undefined) throw new Error(`no codec for ${protocol}`);
  return codec;
}

/** A stream's headers and body: event-stream framing for Bedrock, SSE for the others (Gemini's JSON array unless `jsonArray` is false). */
export function encodeStream(
  protocol: ProtocolId,
  events: readonly StreamEvent[],
  jsonArray = false,
): { headers: Record<string, string>; body: string | Uint8Array } {
  const encoder = codecOf(protocol).createStreamEncoder({ streamUsage: true, ...(jsonArray && { jsonArrayStream: true }) });
  const batch = new WireBatch();
  for (const event of events) batch.add(encoder.encode(event));
  return { headers: protocol === 'bedrock' ? { ...EVENTSTREAM_HEADERS } : { ...SSE_HEADERS }, body: batch.take() };
}

/** Writes `response` as the call asked: a JSON body, or its stream (Gemini as a JSON array unless asked with alt=sse). */
export function writeAnswer(res: ServerResponse, call: ProtocolCall, response: ChatResponse, stream: boolean): void {
  if (!stream) {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(call.codec.encodeResponse(response, { streamUsage: true }).body));
    return;
  }
  const { headers, body } = encodeStream(call.protocol, eventsOf(response), call.protocol === 'gemini' && !call.path.includes('alt=sse'));
  res.writeHead(200, headers).end(body);
}

/** A response as the stream of events that carries it (text and arguments in two pieces each). */
export function eventsOf(response: ChatResponse): StreamEvent[] {
  const out: StreamEvent[] = [{ type: 'message_start', id: response.id, model: response.model }];
  const halves = (s: string) => [s.slice(0, Math.ceil(s.length / 2)), s.slice(Math.ceil(s.length / 2))].filter((p) => p !== '');
  response.content.forEach((block, index) => {
    switch (block.type) {
      case 'text':
        out.push({ type: 'block_start', index, block: { type: 'text' } });
        for (const text of halves(block.text)) out.push({ type: 'block_delta', index, delta: { type: 'text', text } });
        break;
      case 'reasoning': {
        const proof = block.signature ?? block.redacted;
        out.push({
          type: 'block_start',
          index,
          block: { type: 'reasoning', ...(block.origin !== undefined && { origin: block.origin }), ...(block.id !== undefined && { id: block.id }) },
        });
        for (const text of halves(block.text)) out.push({ type: 'block_delta', index, delta: { type: 'reasoning', text } });
        if (proof !== undefined) out.push({ type: 'block_delta', index, delta: { type: 'signature', signature: proof } });
        break;
      }
      case 'tool_call':
        out.push({
          type: 'block_start',
          index,
          block: { type: 'tool_call', id: block.id, name: block.name, ...(block.signature !== undefined && { signature: block.signature }) },
        });
        for (const partialJson of halves(block.arguments)) out.push({ type: 'block_delta', index, delta: { type: 'tool_arguments', partialJson } });
        break;
      default:
        throw new Error(`no stream form for a ${block.type} block in a reply`);
    }
    out.push({ type: 'block_stop', index });
  });
  out.push({ type: 'finish', finish: response.finish });
  if (response.usage !== null) out.push({ type: 'usage', usage: response.usage });
  out.push({ type: 'message_stop' });
  return out;
}

export interface SixProtocolServer {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * A loopback server that answers 404 to a path of no protocol and hands every other call, body
 * read, to `handle`. Embeddings routes (OpenAI, Gemini, Cohere, Bedrock InvokeModel) are answered
 * by the protocol's real embeddings wire format with deterministic vectors (`server/demo/embedding-replies.ts`).
 */
export async function startSixProtocolServer(handle: (call: ProtocolCall, res: ServerResponse) => void): Promise<SixProtocolServer> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '';
      const embeddings = embeddingsEndpointFor(path);
      if (embeddings !== undefined) return answerEmbeddings(res, embeddings, path, Buffer.concat(chunks));
      const protocol = protocolOfPath(path.split('?')[0] ?? '');
      const codec = protocol === undefined ? undefined : codecFor(protocol);
      if (protocol === undefined || codec === undefined) {
        res.writeHead(404).end();
        return;
      }
      handle({ protocol, codec, path, body: Buffer.concat(chunks) }, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function answerEmbeddings(res: ServerResponse, endpoint: EmbeddingsEndpoint, path: string, body: Buffer): void {
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    json = undefined;
  }
  const reply =
    json !== null && typeof json === 'object'
      ? embeddingsReply(endpoint, json as Record<string, unknown>, path)
      : { status: 400, headers: {}, json: { message: 'not JSON' } };
  res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers }).end(JSON.stringify('json' in reply ? reply.json : {}));
}
