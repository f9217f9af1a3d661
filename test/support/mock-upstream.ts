// A scriptable upstream provider for tests. The network edge is the only thing the suite fakes,
// so everything this server sends is real provider wire format (built by server/demo's builders).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { echoProtocolForPath, errorProtocolFor } from '../../server/demo/echo-protocol.ts';
import { echoReply } from '../../server/demo/echo-reply.ts';
import { embeddingsEndpointFor, embeddingsReply } from '../../server/demo/embedding-replies.ts';
import { errorReply } from '../../server/demo/error-reply.ts';
import { readBoundedBody } from '../../server/http-body/bounded-body.ts';
import { mediaReply } from './media-replies.ts';

export interface RecordedRequest {
  method: string;
  /** As sent, query string included. */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  rawBody: Buffer;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
  /** Set when the gateway closed the connection before this mock finished answering. */
  abandoned?: boolean;
}

export type ScriptedReply =
  /** A JSON body (content-type application/json unless given). */
  | { status?: number; headers?: Record<string, string>; json: unknown }
  /** Exactly these bytes, with only the headers given. */
  | { status?: number; headers?: Record<string, string>; raw: string | Buffer }
  /**
   * A body written event by event (content-type text/event-stream unless given), `delayMs` apart.
   * `cutAfter`: destroy the socket after that many events, as when a stream dies mid-way.
   * `pauseAfter`: after that many events, wait `pauseMs` once (a stream that stalls mid-way).
   * `waitFor`: nothing is written (not even headers) until it settles, so a test decides when.
   * `lingerMs`: after the last event, wait that long before ending the body (a server whose end
   * of response trails its last event).
   */
  | {
      status?: number;
      headers?: Record<string, string>;
      events: (string | Buffer)[];
      delayMs?: number;
      cutAfter?: number;
      pauseAfter?: number;
      pauseMs?: number;
      lingerMs?: number;
      waitFor?: Promise<unknown>;
    }
  /** Destroy the socket before any response. */
  | { fault: 'reset' }
  /** Never answer (until close()). */
  | { fault: 'hang' };

/**
 * A promise for a reply's `waitFor` that the test settles with `open()` once it has seen what it
 * waits for, or that settles by itself after `timeoutMs`, so a test that never opens it ends anyway.
 */
export function upstreamGate(timeoutMs: number): { readonly opened: Promise<void>; open(): void } {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
    setTimeout(resolve, timeoutMs).unref();
  });
  return { opened, open };
}

/** A reply made from the request it answers (e.g. one that echoes the credential it received). */
export type ReplyFor = (request: RecordedRequest) => ScriptedReply;

export interface MockUpstream {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:54321`. */
  url: string;
  /** Every request received, oldest first. */
  requests: RecordedRequest[];
  /** Queues replies, served first-in first-out, one per request; when empty, echo replies are served. */
  enqueue(...replies: (ScriptedReply | ReplyFor)[]): void;
  /** Request body bytes received so far, counted as they arrive (before a request is whole). */
  readonly bytesReceived: number;
  /** Forgets queued replies and recorded requests. */
  reset(): void;
  /** Ends hanging and streaming requests, closes every socket, stops listening. */
  close(): Promise<void>;
}

export async function startMockUpstream(): Promise<MockUpstream> {
  const queue: (ScriptedReply | ReplyFor)[] = [];
  const requests: RecordedRequest[] = [];
  const closing = new AbortController();
  let bytesReceived = 0;

  const server = createServer((req, res) => {
    res.on('error', () => {}); // clients that vanish mid-reply are part of what tests exercise
    req.on('data', (chunk: Buffer) => void (bytesReceived += chunk.length));
    receive(req)
      .then((request) => {
        requests.push(request);
        res.on('close', () => {
          if (!res.writableFinished) request.abandoned = true;
        });
        const next = queue.shift();
        return serve(typeof next === 'function' ? next(request) : (next ?? defaultReply(request)), req, res, closing.signal);
      })
      .catch(() => req.socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get bytesReceived() {
      return bytesReceived;
    },
    enqueue: (...replies) => void queue.push(...replies),
    reset: () => {
      queue.length = 0;
      requests.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        closing.abort();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function receive(req: IncomingMessage): Promise<RecordedRequest> {
  const { body } = await readBoundedBody(req, { limit: Number.POSITIVE_INFINITY, past: { then: 'drain' } });
  return { method: req.method ?? '', path: req.url ?? '', headers: { ...req.headers }, rawBody: body, json: parseJson(body) };
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** A realistic echo from the protocol the path belongs to; 404 in that protocol's shape otherwise. */
function defaultReply(request: RecordedRequest): ScriptedReply {
  const protocol = echoProtocolForPath(request.path);
  if (protocol !== undefined) return echoReply(protocol, request.rawBody);
  const media = mediaReply(request);
  if (media !== undefined) return media;
  const embeddings = embeddingsEndpointFor(request.path);
  if (embeddings !== undefined && request.json !== null && typeof request.json === 'object')
    return embeddingsReply(embeddings, request.json as Record<string, unknown>, request.path);
  const pathname = request.path.split('?', 1)[0] ?? '';
  return errorReply(errorProtocolFor(request.path, request.headers), 'not_found', `Invalid URL (${request.method} ${pathname})`);
}

async function serve(reply: ScriptedReply, req: IncomingMessage, res: ServerResponse, closing: AbortSignal): Promise<void> {
  if ('fault' in reply) {
    if (reply.fault === 'reset') req.socket.destroy();
    return; // 'hang': the socket stays open until close() destroys it
  }
  if ('json' in reply) {
    startResponse(res, reply.status, { 'content-type': 'application/json' }, reply.headers);
    res.end(JSON.stringify(reply.json));
    return;
  }
  if ('raw' in reply) {
    startResponse(res, reply.status, {}, reply.headers);
    res.end(reply.raw);
    return;
  }
  if (reply.waitFor !== undefined) await reply.waitFor;
  startResponse(res, reply.status, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' }, reply.headers);
  res.flushHeaders();
  const cutAfter = reply.cutAfter;
  const toWrite = cutAfter === undefined ? reply.events : reply.events.slice(0, Math.max(0, cutAfter));
  for (const [index, event] of toWrite.entries()) {
    if (index > 0 && reply.delayMs) await sleep(reply.delayMs, undefined, { signal: closing });
    if (index === reply.pauseAfter && reply.pauseMs) await sleep(reply.pauseMs, undefined, { signal: closing }); // 0: before the first
    if (res.destroyed) return;
    await flushed(res, event);
  }
  if (reply.lingerMs !== undefined && cutAfter === undefined) await sleep(reply.lingerMs, undefined, { signal: closing }).catch(() => {});
  if (cutAfter === undefined) res.end();
  else req.socket.destroy();
}

/** Sets defaults then the script's headers, case-insensitively, so a script can override any default. */
function startResponse(res: ServerResponse, status: number | undefined, defaults: Record<string, string>, overrides: Record<string, string> | undefined): void {
  for (const [name, value] of Object.entries(defaults)) res.setHeader(name, value);
  for (const [name, value] of Object.entries(overrides ?? {})) res.setHeader(name, value);
  res.statusCode = status ?? 200;
}

/** Writes one event and waits until it has left the process, so a following cut cannot swallow it. */
function flushed(res: ServerResponse, chunk: string | Buffer): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('close', done);
      resolve();
    };
    res.once('close', done);
    res.write(chunk, done);
  });
}
