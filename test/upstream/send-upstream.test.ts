// The upstream client on a real socket: whole answers, streams with backpressure, the bounds, the
// abort signal, and each network failure said as describeNetworkError / describeBodyError say it.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ProviderRuntime } from '../../server/config/runtime-config.ts';
import { readBoundedBody, readUpstreamBody } from '../../server/http-body/bounded-body.ts';
import { GatewayFailure } from '../../server/ir/index.ts';
import type { AbortListener } from '../../server/upstream/abort-watch.ts';
import { UpstreamClient } from '../../server/upstream/upstream-client.ts';
import { describeBodyError, sendUpstream, type UpstreamCall, type UpstreamResponse } from '../../server/upstream/send-upstream.ts';

type Route = (req: IncomingMessage, res: ServerResponse, body: Buffer) => void;

let server: Server;
let route: Route = (_req, res) => res.end('{}');
let agent: UpstreamClient;
let provider: ProviderRuntime;
const seen: { headers: IncomingMessage['headers']; body: Buffer }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      seen.push({ headers: req.headers, body });
      route(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  provider = {
    name: 'mock',
    baseUrl: `http://127.0.0.1:${port}/v1`,
    query: {},
    headers: { 'x-catalog': 'default', 'anthropic-version': '2023-06-01' },
    apiKey: 'sk-upstream',
    auth: 'bearer',
  } as unknown as ProviderRuntime;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

afterEach(async () => {
  await agent?.close();
  seen.length = 0;
});

function call(overrides: Partial<UpstreamCall> = {}): UpstreamCall {
  return {
    provider,
    path: '/chat/completions',
    body: '{"model":"m"}',
    stream: false,
    signal: new AbortController().signal,
    headersTimeoutMs: 2_000,
    idleTimeoutMs: 2_000,
    ...overrides,
  };
}

function send(overrides: Partial<UpstreamCall> = {}) {
  agent = new UpstreamClient(1_000);
  return sendUpstream(agent, call(overrides));
}

/** The route answers `pieces` copies of `piece`, written as fast as the client takes them; how many went so far. */
function writeAsReadFrom(piece: Buffer, pieces: number): () => number {
  let written = 0;
  route = (_req, res) => {
    const more = () => {
      while (written < pieces) {
        written++;
        if (!res.write(piece)) return void res.once('drain', more);
      }
      res.end();
    };
    more();
  };
  return () => written;
}

const failureOf = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GatewayFailure);
  return (error as GatewayFailure).error;
};

describe('sendUpstream: the request', () => {
  it('sends the body with the catalog, credential and accept headers', async () => {
    route = (_req, res) => res.end('{}');
    const answer = await send();
    await readUpstreamBody(answer.body);
    const [request] = seen;
    expect(request?.body.toString()).toBe('{"model":"m"}');
    expect(request?.headers).toMatchObject({
      'x-catalog': 'default',
      authorization: 'Bearer sk-upstream',
      'content-type': 'application/json',
      'accept-encoding': 'identity',
      accept: 'application/json',
    });
  });

  it('forwarded client headers win over the catalog, never over the credential or accept', async () => {
    route = (_req, res) => res.end('{}');
    const answer = await send({
      stream: true,
      forwardHeaders: { 'anthropic-version': '2024-01-01', authorization: 'Bearer client', accept: 'text/html', 'anthropic-beta': 'x' },
    });
    await readUpstreamBody(answer.body);
    expect(seen[0]?.headers).toMatchObject({
      'anthropic-version': '2024-01-01',
      'anthropic-beta': 'x',
      authorization: 'Bearer sk-upstream',
      accept: 'text/event-stream',
    });
  });

  it('streams an upload through with its own content type and length', async () => {
    route = (_req, res) => res.end('{}');
    async function* parts() {
      yield Buffer.from('--b\r\n');
      yield Buffer.from('data\r\n--b--\r\n');
    }
    const answer = await send({ body: parts(), contentType: 'multipart/form-data; boundary=b', contentLength: 18 });
    await readUpstreamBody(answer.body);
    expect(seen[0]?.headers).toMatchObject({ 'content-type': 'multipart/form-data; boundary=b', 'content-length': '18' });
    expect(seen[0]?.body.toString()).toBe('--b\r\ndata\r\n--b--\r\n');
  });
});

describe('sendUpstream: whole answers', () => {
  it('resolves at the headers; the body reads whole', async () => {
    route = (_req, res) => {
      res.writeHead(201, { 'content-type': 'application/json', 'x-request-id': 'r1' });
      res.end('{"ok":true}');
    };
    const answer = await send();
    expect(answer.status).toBe(201);
    expect(answer.headers['x-request-id']).toBe('r1');
    expect((await readUpstreamBody(answer.body)).toString()).toBe('{"ok":true}');
  });

  it('a body sent in pieces is read whole', async () => {
    route = (_req, res) => {
      res.write('{"a":');
      setTimeout(() => res.end('1}'), 30);
    };
    const answer = await send();
    expect((await readUpstreamBody(answer.body)).toString()).toBe('{"a":1}');
  });

  it('past the limit: the first bytes are kept and the rest is let go', async () => {
    route = (_req, res) => {
      res.write('a'.repeat(10));
      setTimeout(() => res.end('b'.repeat(10)), 20);
    };
    const answer = await send();
    expect((await readUpstreamBody(answer.body, 15)).toString()).toBe(`${'a'.repeat(10)}bbbbb`);
    expect(answer.body.overrun).toBe('too_large');
  });

  it("readBoundedBody's fail: the caller's error past the limit", async () => {
    route = (_req, res) => res.end('x'.repeat(100));
    const answer = await send();
    await expect(readBoundedBody(answer.body, { limit: 50, past: { then: 'fail', error: (over) => new Error(over) } })).rejects.toThrow('too_large');
  });

  it('an empty body reads as an empty buffer', async () => {
    route = (_req, res) => res.end();
    const answer = await send();
    expect((await readUpstreamBody(answer.body)).length).toBe(0);
    expect(await (await send()).body.collectPieces(100)).toEqual([]);
  });

  it('collectPieces: the body in the pieces it came in, unjoined, within the same limit', async () => {
    const big = Buffer.alloc(300_000, 'x');
    route = (_req, res) => {
      res.write('{"a":');
      setTimeout(() => res.end(big), 20);
    };
    const pieces = await (await send()).body.collectPieces(1_000_000);
    expect(pieces.length).toBeGreaterThan(1);
    expect(Buffer.concat(pieces).equals(Buffer.concat([Buffer.from('{"a":'), big]))).toBe(true);
    const cut = await send();
    expect(Buffer.concat(await cut.body.collectPieces(1000)).length).toBe(1000);
    expect(cut.body.overrun).toBe('too_large');
  });
});

describe('sendUpstream: streams', () => {
  it('yields chunks as they come, in order', async () => {
    route = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      let i = 0;
      const tick = () => {
        if (i === 3) return res.end();
        res.write(`data: ${i++}\n\n`);
        setTimeout(tick, 10);
      };
      tick();
    };
    const answer = await send({ stream: true });
    const chunks: string[] = [];
    for await (const chunk of answer.body) chunks.push(chunk.toString());
    expect(chunks.join('')).toBe('data: 0\n\ndata: 1\n\ndata: 2\n\n');
  });

  it("a chunked body's frames from one socket read reach a waiting reader as one piece", async () => {
    let release = () => {};
    route = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.flushHeaders();
      release = () => {
        // One write of 100 chunked frames: one socket read on the gateway's side, parsed as 100 calls.
        res.socket?.cork();
        for (let i = 0; i < 100; i++) res.write(`data: ${i}\n\n`);
        res.socket?.uncork();
        res.end();
      };
    };
    const answer = await send({ stream: true });
    const pieces: string[] = [];
    const reading = (async () => {
      for await (const chunk of answer.body) pieces.push(chunk.toString());
    })();
    await new Promise((resolve) => setTimeout(resolve, 20)); // the reader waits
    release();
    await reading;
    expect(pieces.join('')).toBe(Array.from({ length: 100 }, (_, i) => `data: ${i}\n\n`).join(''));
    expect(pieces).toHaveLength(1);
  });

  it('a slow reader pauses the upstream and still gets every byte', async () => {
    const piece = Buffer.alloc(64 * 1024, 7);
    const pieces = 1024; // 64 MiB: far past the 64 KiB the reply queues and what the socket buffers hold
    const written = writeAsReadFrom(piece, pieces);
    const answer = await send({ stream: true });
    let total = 0;
    let first = true;
    for await (const chunk of answer.body) {
      if (first) {
        first = false;
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        // Paused: the server could not write it all while nothing was read.
        expect(written()).toBeLessThan(pieces);
      }
      total += chunk.length;
    }
    expect(total).toBe(pieces * piece.length);
  });

  it('leaving the loop early aborts the rest', async () => {
    let closed = false;
    route = (_req, res) => {
      res.on('close', () => {
        closed = true;
      });
      res.write('data: 0\n\n');
    };
    const answer = await send({ stream: true });
    for await (const _ of answer.body) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(closed).toBe(true);
  });
});

describe('sendUpstream: streams read directly (read/readable, as the relays read them)', () => {
  /** Every chunk through read(), waiting on readable() only when nothing has come. */
  async function readAll(body: UpstreamResponse['body'], onChunk: (chunk: Buffer) => void | Promise<void> = () => {}): Promise<string[]> {
    const pieces: string[] = [];
    for (let chunk = body.read(); chunk !== null; chunk = body.read()) {
      if (chunk === undefined) {
        await body.readable();
        continue;
      }
      pieces.push(chunk.toString());
      await onChunk(chunk);
    }
    return pieces;
  }

  it('gives chunks as they come, in order, then null', async () => {
    route = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      let i = 0;
      const tick = () => {
        if (i === 3) return res.end();
        res.write(`data: ${i++}\n\n`);
        setTimeout(tick, 10);
      };
      tick();
    };
    const answer = await send({ stream: true });
    expect((await readAll(answer.body)).join('')).toBe('data: 0\n\ndata: 1\n\ndata: 2\n\n');
    expect(answer.body.read()).toBeNull();
  });

  it("a chunked body's frames from one socket read are one read once the wait ends", async () => {
    let release = () => {};
    route = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.flushHeaders();
      release = () => {
        res.socket?.cork();
        for (let i = 0; i < 100; i++) res.write(`data: ${i}\n\n`);
        res.socket?.uncork();
        res.end();
      };
    };
    const answer = await send({ stream: true });
    expect(answer.body.read()).toBeUndefined(); // nothing yet
    const reading = readAll(answer.body);
    await new Promise((resolve) => setTimeout(resolve, 20)); // the reader waits
    release();
    const pieces = await reading;
    expect(pieces.join('')).toBe(Array.from({ length: 100 }, (_, i) => `data: ${i}\n\n`).join(''));
    expect(pieces).toHaveLength(1);
  });

  it('a slow reader of read()/readable() pauses the upstream and still gets every byte', async () => {
    const piece = Buffer.alloc(64 * 1024, 7);
    const pieces = 256;
    const written = writeAsReadFrom(piece, pieces);
    const answer = await send({ stream: true });
    let total = 0;
    let first = true;
    await readAll(answer.body, async (chunk) => {
      total += chunk.length;
      if (!first) return;
      first = false;
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(written()).toBeLessThan(pieces); // paused while nothing was read
    });
    expect(total).toBe(pieces * piece.length);
  });

  it('a connection closed mid-stream: the wait ends and read() throws what describeBodyError calls upstream_closed', async () => {
    route = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 0\n\n');
      setTimeout(() => res.socket?.destroy(), 20);
    };
    const answer = await send({ stream: true });
    const error = await readAll(answer.body).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(describeBodyError(error, 'mock', 'stream')).toMatchObject({ status: 502, code: 'upstream_closed' });
  });

  it('destroy() while the reader waits: the wait ends and read() throws, the upstream connection closed', async () => {
    let closed = false;
    route = (_req, res) => {
      res.on('close', () => {
        closed = true;
      });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.flushHeaders();
    };
    const answer = await send({ stream: true });
    const waiting = answer.body.readable();
    answer.body.destroy();
    await waiting;
    expect(() => answer.body.read()).toThrow();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(closed).toBe(true);
  });
});

describe('sendUpstream: failures', () => {
  it('no answer within the headers timeout: upstream_timeout (504)', async () => {
    route = () => {};
    expect(await failureOf(send({ headersTimeoutMs: 100 }))).toMatchObject({ status: 504, code: 'upstream_timeout' });
  });

  it('nothing listening: upstream_unreachable (502)', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const error = await failureOf(send({ provider: { ...provider, baseUrl: `http://127.0.0.1:${port}` } as ProviderRuntime }));
    expect(error).toMatchObject({ status: 502, code: 'upstream_unreachable' });
  });

  it('a connection closed mid-body: upstream_closed', async () => {
    route = (_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('partial');
      setTimeout(() => res.socket?.destroy(), 20);
    };
    const answer = await send();
    const error = await readUpstreamBody(answer.body).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(describeBodyError(error, 'mock', 'answer')).toMatchObject({ status: 502, code: 'upstream_closed' });
  });

  it('a stream silent past the idle timeout: upstream_timeout', async () => {
    route = (_req, res) => res.write('data: 0\n\n');
    const answer = await send({ stream: true, idleTimeoutMs: 100 });
    const error = await (async () => {
      try {
        for await (const _ of answer.body);
      } catch (e) {
        return e;
      }
    })();
    expect(describeBodyError(error, 'mock', 'stream')).toMatchObject({ status: 504, code: 'upstream_timeout' });
  });

  it('the signal aborts before the headers: the request fails', async () => {
    route = () => {};
    const controller = new AbortController();
    const pending = send({ signal: controller.signal });
    setTimeout(() => controller.abort(), 30);
    await failureOf(pending);
  });

  it('an already aborted signal: the request is not sent', async () => {
    route = (_req, res) => res.end('{}');
    const controller = new AbortController();
    controller.abort();
    await failureOf(send({ signal: controller.signal }));
    expect(seen).toHaveLength(0);
  });

  it('the signal aborts mid-stream: the reader throws the reason', async () => {
    route = (_req, res) => res.write('data: 0\n\n');
    const controller = new AbortController();
    const answer = await send({ stream: true, signal: controller.signal });
    const reason = new Error('client left');
    const read = (async () => {
      for await (const _ of answer.body) controller.abort(reason);
    })();
    await expect(read).rejects.toBe(reason);
  });
});

/** The attempt's side of an AbortWatch (as failover.ts's LaneAttempt): the signal aborts first, then the watcher is told. */
class TestWatch {
  readonly controller = new AbortController();
  watcher: AbortListener | undefined;
  watchAbort(listener: AbortListener): void {
    if (this.controller.signal.aborted) listener.handleEvent();
    else this.watcher = listener;
  }
  unwatchAbort(listener: AbortListener): void {
    if (this.watcher === listener) this.watcher = undefined;
  }
  abort(reason?: Error): void {
    this.controller.abort(reason);
    const watcher = this.watcher;
    this.watcher = undefined;
    watcher?.handleEvent();
  }
}

describe('sendUpstream: an abort watched without a listener on the signal (abortWatch)', () => {
  const watched = (watch: TestWatch, overrides: Partial<UpstreamCall> = {}) => send({ signal: watch.controller.signal, abortWatch: watch, ...overrides });

  it('adds no listener to the signal, and lets go of the watch once the answer has ended', async () => {
    route = (_req, res) => res.end('{"ok":true}');
    const watch = new TestWatch();
    const { signal } = watch.controller;
    const added: string[] = [];
    const add = signal.addEventListener.bind(signal);
    signal.addEventListener = ((type: string, ...rest: [never, never]) => {
      added.push(type);
      add(type, ...rest);
    }) as typeof signal.addEventListener;
    let watches = 0;
    const watchAbort = watch.watchAbort.bind(watch);
    watch.watchAbort = (listener) => {
      watches++;
      watchAbort(listener);
    };
    const answer = await watched(watch);
    expect((await readUpstreamBody(answer.body)).toString()).toBe('{"ok":true}');
    expect(watches).toBe(1);
    expect(watch.watcher).toBeUndefined();
    expect(added).toEqual([]);
  });

  it('an abort before the headers fails the request', async () => {
    route = () => {};
    const watch = new TestWatch();
    const pending = watched(watch);
    setTimeout(() => watch.abort(), 30);
    await failureOf(pending);
    expect(watch.watcher).toBeUndefined();
  });

  it('already aborted: the request is not sent', async () => {
    route = (_req, res) => res.end('{}');
    const watch = new TestWatch();
    watch.abort();
    await failureOf(watched(watch));
    expect(seen).toHaveLength(0);
  });

  it('an abort mid-stream: the reader throws the reason', async () => {
    route = (_req, res) => res.write('data: 0\n\n');
    const watch = new TestWatch();
    const answer = await watched(watch, { stream: true });
    const reason = new Error('client left');
    const read = (async () => {
      for await (const _ of answer.body) watch.abort(reason);
    })();
    await expect(read).rejects.toBe(reason);
  });
});
