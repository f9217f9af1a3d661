// A provider that speaks all six protocols, scripted per request: it records each request (the
// protocol is read from the path) and answers with the IR reply the test's script gives, written by
// that protocol's own encoder, streamed or not as asked. The encoders are what the codecs' SDK
// tests establish as faithful to the official SDKs, so the answers are real wire format.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EVENTSTREAM_HEADERS } from '../../../server/framing/eventstream-frame.ts';
import { SSE_HEADERS } from '../../../server/framing/sse-format.ts';
import { WireBatch } from '../../../server/framing/wire-chunks.ts';
import type { ChatResponse, ProtocolId, StreamEvent } from '../../../server/ir/index.ts';
import { codecFor } from '../../../server/protocols/registry.ts';
import { protocolOfPath } from '../../matrix/six-protocol-upstream.ts';

export interface SeenRequest {
  readonly protocol: ProtocolId;
  readonly path: string;
  readonly json: Record<string, unknown>;
  readonly raw: string;
}

/** The answer to one request, or an HTTP error `{status, body}` (a refusal, as the provider would word it). */
export type Script = (request: SeenRequest) => ChatResponse | { status: number; body: unknown };

export interface ScriptedUpstream {
  readonly url: string;
  readonly requests: SeenRequest[];
  script: Script;
  close(): Promise<void>;
}

export async function startScriptedUpstream(script: Script): Promise<ScriptedUpstream> {
  const requests: SeenRequest[] = [];
  const upstream: ScriptedUpstream = { url: '', requests, script, close: async () => {} };
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
      const raw = Buffer.concat(chunks).toString('utf8');
      const seen: SeenRequest = { protocol, path, json: JSON.parse(raw) as Record<string, unknown>, raw };
      requests.push(seen);
      const answer = upstream.script(seen);
      if ('status' in answer) {
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
        return;
      }
      const stream = seen.json.stream === true || path.includes(':streamGenerateContent') || path.endsWith('/converse-stream');
      if (!stream) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(codec.encodeResponse(answer, { streamUsage: true }).body));
        return;
      }
      const encoder = codec.createStreamEncoder({ streamUsage: true, jsonArrayStream: protocol === 'gemini' && !path.includes('alt=sse') });
      const batch = new WireBatch();
      for (const event of eventsOf(answer)) batch.add(encoder.encode(event));
      res.writeHead(200, protocol === 'bedrock' ? { ...EVENTSTREAM_HEADERS } : { ...SSE_HEADERS }).end(batch.take());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  Object.assign(upstream, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  });
  return upstream;
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
        out.push({ type: 'block_start', index, block: { type: 'reasoning', ...(block.origin !== undefined && { origin: block.origin }), ...(block.id !== undefined && { id: block.id }) } });
        for (const text of halves(block.text)) out.push({ type: 'block_delta', index, delta: { type: 'reasoning', text } });
        if (proof !== undefined) out.push({ type: 'block_delta', index, delta: { type: 'signature', signature: proof } });
        break;
      }
      case 'tool_call':
        out.push({ type: 'block_start', index, block: { type: 'tool_call', id: block.id, name: block.name, ...(block.signature !== undefined && { signature: block.signature }) } });
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
