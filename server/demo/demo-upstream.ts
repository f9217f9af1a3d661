// The gateway's built-in demo provider: a local HTTP server speaking OpenAI Chat Completions and
// Anthropic Messages, answering with echo replies, and OpenAI embeddings with deterministic vectors
// (a hash of each text), so `make run` works with no API keys.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type EchoProtocol, errorProtocolFor } from './echo-protocol.ts';
import { echoReply } from './echo-reply.ts';
import { errorReply } from './error-reply.ts';
import { type HttpReply, writeHttpReply } from './http-reply.ts';
import { readBoundedBody } from '../http-body/bounded-body.ts';
import { embeddingsReply } from './embedding-replies.ts';

export interface DemoUpstreamOptions {
  /** Interface to listen on; 127.0.0.1 by default so the demo is never reachable from outside. */
  host?: string;
}

export interface DemoUpstream {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:54321`. */
  url: string;
  close(): Promise<void>;
}

const ROUTES: Record<string, EchoProtocol> = {
  '/v1/chat/completions': 'openai',
  '/v1/messages': 'anthropic',
};

/** Generous for a demo, but bounded so a runaway client cannot exhaust memory. */
const MAX_BODY_BYTES = 32 * 1024 * 1024;

export async function startDemoUpstream(options: DemoUpstreamOptions = {}): Promise<DemoUpstream> {
  const host = options.host ?? '127.0.0.1';
  const server = createServer({ keepAlive: true }, (req, res) => {
    res.on('error', () => {}); // a vanished client must not take the server down
    answer(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = req.url ?? '/';
  const { body, overLimit: tooLarge } = await readBoundedBody(req, { limit: MAX_BODY_BYTES, past: { then: 'drain' } });
  writeHttpReply(res, replyFor(req, path, body, tooLarge));
}

function replyFor(req: IncomingMessage, path: string, body: Buffer, tooLarge: boolean): HttpReply {
  const pathname = path.split('?', 1)[0] ?? '';
  const protocol = req.method === 'POST' ? ROUTES[pathname] : undefined;
  const embeddings = req.method === 'POST' && pathname === '/v1/embeddings';
  if (embeddings && !tooLarge) return openaiEmbeddingsReply(body);
  if (protocol === undefined) {
    return errorReply(errorProtocolFor(path, req.headers), 'not_found', `Invalid URL (${req.method} ${pathname})`);
  }
  if (tooLarge) return errorReply(protocol, 'request_too_large', `Request body exceeds ${MAX_BODY_BYTES} bytes.`);
  return echoReply(protocol, body);
}

/** OpenAI embeddings: a deterministic vector per text (its hash), so the same text always embeds the same. */
function openaiEmbeddingsReply(body: Buffer): HttpReply {
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    return errorReply('openai', 'invalid_request', 'We could not parse the JSON body of your request.');
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json))
    return errorReply('openai', 'invalid_request', 'The request body must be a JSON object.');
  return embeddingsReply('openai', json as Record<string, unknown>, '/v1/embeddings');
}
