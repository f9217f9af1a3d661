// The benchmark's upstream, run as its own process so its CPU is not the gateway's. It answers all
// six protocols (recognised by path) with precomputed real wire bodies, stream or not, at zero delay.
// Paced mode: an upstream model named `paced-<N>x<M>` (in the body, or in the path for Gemini and
// Bedrock) streams N chunks M ms apart, each a delta carrying a marker (`#c<i>#`). Flaky mode: an
// upstream model named `flaky-<P>` fails P% of its requests (mock-faults.ts: 500, reset, hang).
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WireChunk } from '../server/protocols/codec.ts';
import { protocolOfPath } from '../test/support/protocol-routes.ts';
import { drawFault, serveFault } from './mock-faults.ts';
import { MockReplies } from './mock-replies.ts';
import { embeddingsEndpointFor, embeddingsReply, type EmbeddingsEndpoint } from '../server/demo/embedding-replies.ts';

const PACE_PATTERN = /paced-(\d{1,4})x(\d{1,5})/;
const replies = new MockReplies();

interface Pace {
  readonly chunks: number;
  readonly intervalMs: number;
}

function paceOf(path: string, body: Buffer): Pace | undefined {
  const found = PACE_PATTERN.exec(path) ?? (body.includes('paced-') ? PACE_PATTERN.exec(body.toString('utf8')) : null);
  if (found === null) return undefined;
  return { chunks: Math.max(1, Number(found[1])), intervalMs: Number(found[2]) };
}

/** One chunk every `intervalMs`; stops early when the client (the gateway) goes away. */
function writePaced(res: ServerResponse, writes: readonly WireChunk[], intervalMs: number): void {
  let next = 0;
  const writeNext = () => {
    if (res.destroyed) return;
    const chunk = writes[next++]!;
    if (next === writes.length) res.end(chunk);
    else {
      res.write(chunk);
      setTimeout(writeNext, intervalMs);
    }
  };
  writeNext();
}

const server = createServer({ keepAlive: true }, (req, res) => {
  res.on('error', () => {}); // a client that goes away mid-stream is not the mock's problem
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const url = req.url ?? '';
    const path = url.split('?', 1)[0] ?? '';
    const embeddings = embeddingsEndpointFor(path);
    if (embeddings !== undefined) return answerEmbeddings(res, embeddings, path, Buffer.concat(chunks));
    const protocol = protocolOfPath(path);
    if (protocol === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end(`no such route: ${path}`);
      return;
    }
    const body = Buffer.concat(chunks);
    const fault = drawFault(path, body);
    if (fault !== undefined) return serveFault(fault, protocol, req, res);
    const stream = path.endsWith(':streamGenerateContent') || path.endsWith('/converse-stream') || body.includes('"stream":true');
    if (!stream) {
      const json = replies.jsonBody(protocol);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) }).end(json);
      return;
    }
    const jsonArray = protocol === 'gemini' && !url.includes('alt=sse');
    const pace = paceOf(path, body);
    const reply = replies.stream(protocol, jsonArray, pace?.chunks);
    res.writeHead(200, reply.headers);
    if (pace === undefined) res.end(reply.writes[0]);
    else writePaced(res, reply.writes, pace.intervalMs);
  });
});
/** Embeddings answers, made once per distinct request (a benchmark repeats one), so the mock costs little per request. */
const embeddingAnswers = new Map<string, { status: number; headers: Record<string, string>; body: string }>();

function answerEmbeddings(res: ServerResponse, endpoint: EmbeddingsEndpoint, path: string, body: Buffer): void {
  const key = `${path} ${body.toString('latin1')}`;
  let answer = embeddingAnswers.get(key);
  if (answer === undefined) {
    let json: unknown;
    try {
      json = JSON.parse(body.toString('utf8'));
    } catch {
      json = {};
    }
    const reply = embeddingsReply(endpoint, (json ?? {}) as Record<string, unknown>, path);
    answer = { status: reply.status, headers: reply.headers, body: JSON.stringify('json' in reply ? reply.json : {}) };
    if (embeddingAnswers.size < 64) embeddingAnswers.set(key, answer);
  }
  res.writeHead(answer.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer.body), ...answer.headers }).end(answer.body);
}

server.listen(0, '127.0.0.1', () => {
  console.log(JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
});
