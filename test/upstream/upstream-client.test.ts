// The upstream client's connections on real loopback servers: keep-alive reuse and what ends it,
// each timeout, resets before and after the headers, answers framed every way HTTP/1.1 allows,
// uploads, and https with a CA of the test's own.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { type AddressInfo, createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ProviderRuntime } from '../../server/config/runtime-config.ts';
import { readUpstreamBody } from '../../server/http-body/bounded-body.ts';
import { GatewayFailure } from '../../server/ir/index.ts';
import { UpstreamClient } from '../../server/upstream/upstream-client.ts';
import { describeBodyError, sendUpstream, type UpstreamCall } from '../../server/upstream/send-upstream.ts';
import { makeTlsFixtures, type TlsFixtures } from '../support/tls-fixtures.ts';

const closers: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

function providerAt(baseUrl: string): ProviderRuntime {
  return { name: 'mock', baseUrl, query: {}, headers: {}, apiKey: 'sk-upstream', auth: 'bearer' } as unknown as ProviderRuntime;
}

function call(baseUrl: string, overrides: Partial<UpstreamCall> = {}): UpstreamCall {
  return {
    provider: providerAt(baseUrl),
    path: '/chat/completions',
    body: '{"model":"m"}',
    stream: false,
    signal: new AbortController().signal,
    headersTimeoutMs: 2_000,
    idleTimeoutMs: 2_000,
    ...overrides,
  };
}

function client(connectMs = 1_000, tls?: { ca: string }): UpstreamClient {
  const made = new UpstreamClient(connectMs, tls);
  closers.push(() => made.close());
  return made;
}

/** An HTTP server on loopback that counts its connections. */
async function httpServer(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; server: Server; connections: () => number }> {
  let connections = 0;
  const server = createServer(handler);
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, connections: () => connections };
}

/** A TCP server that answers each request's bytes as `answer` says (raw HTTP, for what node:http's server would not send). */
async function rawServer(answer: (socket: Socket, request: string) => void): Promise<{ url: string; connections: () => number }> {
  let connections = 0;
  const sockets = new Set<Socket>();
  const server: NetServer = createNetServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let seen = '';
    socket.on('data', (chunk) => {
      seen += chunk.toString('latin1');
      const end = seen.indexOf('\r\n\r\n');
      if (end === -1) return;
      const length = Number(/content-length: (\d+)/i.exec(seen)?.[1] ?? 0);
      if (seen.length < end + 4 + length) return;
      const request = seen;
      seen = '';
      answer(socket, request);
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => {
    for (const socket of sockets) socket.destroy();
    return new Promise((resolve) => server.close(resolve));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connections: () => connections };
}

const failureOf = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GatewayFailure);
  return (error as GatewayFailure).error;
};

/** What reading a whole answer failed with (undefined: it did not fail). */
const bodyErrorOf = (body: Parameters<typeof readUpstreamBody>[0]) =>
  readUpstreamBody(body).then(
    () => undefined,
    (e: unknown) => e,
  );

const text = async (via: UpstreamClient, c: UpstreamCall) => (await readUpstreamBody((await sendUpstream(via, c)).body)).toString();

describe('upstream client: connections', () => {
  it('reuses a kept-alive connection for the next request', async () => {
    const { url, connections } = await httpServer((_req, res) => res.end('{"n":1}'));
    const via = client();
    expect(await text(via, call(url))).toBe('{"n":1}');
    expect(await text(via, call(url))).toBe('{"n":1}');
    expect(await text(via, call(url))).toBe('{"n":1}');
    expect(connections()).toBe(1);
  });

  it('a connection the server closed while idle is not reused: the next request gets a new one', async () => {
    const { url, connections } = await rawServer((socket) => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}');
      setTimeout(() => socket.end(), 20); // closed between requests, without a hint
    });
    const via = client();
    expect(await text(via, call(url))).toBe('{}');
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(await text(via, call(url))).toBe('{}');
    expect(connections()).toBe(2);
  });

  it('a Keep-Alive hint too short to reuse, or Connection: close, closes the connection after the answer', async () => {
    const { url, connections } = await rawServer((socket, request) => {
      const close = request.includes('/close');
      socket.write(`HTTP/1.1 200 OK\r\ncontent-length: 2\r\n${close ? 'connection: close' : 'keep-alive: timeout=1'}\r\n\r\n{}`);
    });
    const via = client();
    expect(await text(via, call(url, { path: '/hint' }))).toBe('{}');
    expect(await text(via, call(url, { path: '/close' }))).toBe('{}');
    expect(await text(via, call(url, { path: '/hint' }))).toBe('{}');
    expect(connections()).toBe(3);
  });

  it('reads a chunked answer, one ended by the connection, and skips 1xx answers', async () => {
    const { url } = await rawServer((socket, request) => {
      if (request.includes('/chunked'))
        socket.write('HTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\nHTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\n{"a\r\n4\r\n":1}\r\n0\r\n\r\n');
      else socket.end('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n{"eof":true}');
    });
    const via = client();
    const chunked = await sendUpstream(via, call(url, { path: '/chunked' }));
    expect(chunked.status).toBe(200);
    expect((await readUpstreamBody(chunked.body)).toString()).toBe('{"a":1}');
    expect(await text(via, call(url, { path: '/eof' }))).toBe('{"eof":true}');
  });

  it('bytes the server sends on an idle connection close it: the next request is answered on a new one', async () => {
    let answered = 0;
    const { url, connections } = await rawServer((socket) => {
      answered++;
      socket.write(`HTTP/1.1 200 OK\r\ncontent-length: 7\r\n\r\n{"n":${answered}}`);
      // A second answer nobody asked for, after the first.
      if (answered === 1) setTimeout(() => socket.write('HTTP/1.1 200 OK\r\ncontent-length: 9\r\n\r\n{"n":"x"}'), 20);
    });
    const via = client();
    expect(await text(via, call(url))).toBe('{"n":1}');
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(await text(via, call(url))).toBe('{"n":2}');
    expect(connections()).toBe(2);
  });

  it('a Content-Length answer arriving in many pieces is read whole, and the connection carries the next one', async () => {
    const body = Buffer.alloc(1024 * 1024);
    for (let i = 0; i < body.length; i++) body[i] = i % 251;
    let answered = 0;
    const { url, connections } = await rawServer((socket) => {
      answered++;
      if (answered === 1) {
        // The head with the first bytes of the body, then the rest in pieces that cut it anywhere.
        socket.write(Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\ncontent-length: ${body.length}\r\n\r\n`), body.subarray(0, 1000)]));
        let at = 1000;
        const more = () => {
          const next = Math.min(body.length, at + 70_001);
          socket.write(body.subarray(at, next));
          at = next;
          if (at < body.length) setTimeout(more, 1);
        };
        setTimeout(more, 1);
      } else socket.write('HTTP/1.1 200 OK\r\ncontent-length: 7\r\n\r\n{"n":2}');
    });
    const via = client();
    const answer = await sendUpstream(via, call(url));
    const read = await readUpstreamBody(answer.body, 2 * 1024 * 1024);
    expect(read.equals(body)).toBe(true);
    expect(await text(via, call(url))).toBe('{"n":2}'); // the parser started afresh after the body it did not read
    expect(connections()).toBe(1);
  });

  it('bytes past a Content-Length answer are not read as part of it, and the connection is not reused', async () => {
    const { url, connections } = await rawServer((socket) => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-length: 12\r\n\r\n{"a"');
      setTimeout(() => socket.write(':"bcdefg"}EXTRA BYTES'), 10);
    });
    const via = client();
    expect(await text(via, call(url))).toBe('{"a":"bcdefg"}'.slice(0, 12));
    expect(await text(via, call(url))).toBe('{"a":"bcdefg"}'.slice(0, 12));
    expect(connections()).toBe(2);
  });

  it('a Content-Length answer cut short by the connection: upstream_closed', async () => {
    const { url } = await rawServer((socket) => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n{"a"');
      setTimeout(() => socket.end(':1'), 10);
    });
    const answer = await sendUpstream(client(), call(url));
    expect(describeBodyError(await bodyErrorOf(answer.body), 'mock', 'answer')).toMatchObject({ status: 502, code: 'upstream_closed' });
  });

  it('answers repeated headers as arrays, names in lower case', async () => {
    const { url } = await rawServer((socket) => socket.write('HTTP/1.1 200 OK\r\nX-Seen: 1\r\nx-seen: 2\r\nContent-Length: 0\r\n\r\n'));
    const answer = await sendUpstream(client(), call(url));
    expect(answer.headers['x-seen']).toEqual(['1', '2']);
    expect(answer.headers['content-length']).toBe('0');
  });

  it('streams an upload of unknown length chunked', async () => {
    let seen = '';
    let encoding: string | undefined;
    const { url } = await httpServer((req, res) => {
      encoding = req.headers['transfer-encoding'];
      req.on('data', (chunk: Buffer) => (seen += chunk.toString()));
      req.on('end', () => res.end('{}'));
    });
    async function* parts() {
      yield Buffer.from('--b\r\n');
      await new Promise((resolve) => setTimeout(resolve, 10));
      yield Buffer.from('data\r\n--b--\r\n');
    }
    expect(await text(client(), call(url, { body: parts(), contentType: 'multipart/form-data; boundary=b' }))).toBe('{}');
    expect(encoding).toBe('chunked');
    expect(seen).toBe('--b\r\ndata\r\n--b--\r\n');
  });

  it('an upload larger than the socket buffers waits for a slow server and arrives whole', async () => {
    const piece = Buffer.alloc(64 * 1024, 'u');
    const pieces = 128; // 8 MiB
    let produced = 0;
    let received = 0;
    let producedAtFirstRead = -1;
    const { url } = await httpServer((req, res) => {
      req.pause();
      setTimeout(() => {
        producedAtFirstRead = produced;
        req.on('data', (chunk: Buffer) => (received += chunk.length));
        req.on('end', () => res.end('{}'));
        req.resume();
      }, 300);
    });
    async function* upload() {
      for (; produced < pieces; ) {
        produced++;
        yield piece;
      }
    }
    expect(await text(client(), call(url, { body: upload(), contentType: 'application/octet-stream', contentLength: piece.length * pieces }))).toBe('{}');
    expect(received).toBe(piece.length * pieces);
    // Held back while the server read nothing: not all of it was produced into memory.
    expect(producedAtFirstRead).toBeLessThan(pieces);
  });

  it('an upload written slowly by its client is not cut by the headers timeout', async () => {
    const { url } = await httpServer((req, res) => {
      let size = 0;
      req.on('data', (chunk: Buffer) => (size += chunk.length));
      req.on('end', () => res.end(`{"size":${size}}`));
    });
    async function* slowly() {
      for (let i = 0; i < 6; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        yield Buffer.from('0123456789');
      }
    }
    // 600 ms of upload against a 250 ms wait for the headers: the wait runs once the upload is written.
    const c = call(url, { body: slowly(), contentType: 'application/octet-stream', headersTimeoutMs: 250 });
    expect(await text(client(), c)).toBe('{"size":60}');
  });

  it('an answer held back by its reader longer than the idle timeout is not cut; silence after that is', async () => {
    const { url } = await httpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(Buffer.alloc(256 * 1024, 'a')); // past the reader's 64 KB: the connection is paused
      setTimeout(() => res.end('end'), 50);
    });
    const answer = await sendUpstream(client(), call(url, { stream: true, idleTimeoutMs: 200 }));
    await new Promise((resolve) => setTimeout(resolve, 600)); // the reader is away three idle timeouts
    let size = 0;
    for await (const chunk of answer.body) size += chunk.length;
    expect(size).toBe(256 * 1024 + 3);

    const { url: silent } = await httpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n'); // then nothing
    });
    const stalled = await sendUpstream(client(), call(silent, { stream: true, idleTimeoutMs: 200 }));
    const read = (async () => {
      for await (const _ of stalled.body);
    })();
    await expect(read).rejects.toThrow();
    await read.catch((error: unknown) => expect(describeBodyError(error, 'mock', 'stream')).toMatchObject({ status: 504, code: 'upstream_timeout' }));
  });

  it('a header the headers object would inherit (constructor) is read as the upstream sent it', async () => {
    const { url } = await rawServer((socket) => socket.write('HTTP/1.1 200 OK\r\nConstructor: x\r\nContent-Length: 0\r\n\r\n'));
    const answer = await sendUpstream(client(), call(url));
    expect(answer.headers.constructor).toBe('x');
  });

  it('refuses a header value that would split the request head', async () => {
    const { url } = await httpServer((_req, res) => res.end('{}'));
    await expect(sendUpstream(client(), call(url, { forwardHeaders: { 'x-bad': 'a\r\nx-injected: 1' } }))).rejects.toThrow(/invalid upstream header/);
  });
});

describe('upstream client: failures', () => {
  it('a connection reset before the headers: upstream_unreachable (ECONNRESET)', async () => {
    const { url } = await rawServer((socket) => socket.resetAndDestroy());
    expect(await failureOf(sendUpstream(client(), call(url)))).toMatchObject({ status: 502, code: 'upstream_unreachable' });
  });

  it('a connection reset after the headers: upstream_closed', async () => {
    const { url } = await rawServer((socket) => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n{"partial":');
      setTimeout(() => socket.resetAndDestroy(), 20);
    });
    const answer = await sendUpstream(client(), call(url));
    expect(describeBodyError(await bodyErrorOf(answer.body), 'mock', 'answer')).toMatchObject({ status: 502, code: 'upstream_closed' });
  });

  it('an answer the parser refuses: upstream_unreachable, and the connection is not reused', async () => {
    const { url, connections } = await rawServer((socket, request) => {
      socket.write(request.includes('/bad') ? 'HTTP/1.1 200 OK\r\ncontent-length: x\r\n\r\n' : 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}');
    });
    const via = client();
    expect(await failureOf(sendUpstream(via, call(url, { path: '/bad' })))).toMatchObject({ status: 502, code: 'upstream_unreachable' });
    expect(await text(via, call(url))).toBe('{}');
    expect(connections()).toBe(2);
  });

  it('a TLS handshake that never completes: upstream_connect_timeout (504)', async () => {
    const silent = createNetServer(() => {}); // accepts TCP, never speaks TLS
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    closers.push(() => {
      silent.close();
    });
    const url = `https://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    expect(await failureOf(sendUpstream(client(100), call(url)))).toMatchObject({ status: 504, code: 'upstream_connect_timeout' });
  });
});

describe('upstream client: https', () => {
  let tls: TlsFixtures;
  beforeAll(() => {
    tls = makeTlsFixtures();
  });

  it('speaks TLS to an upstream with a CA of its own, keeping the connection', async () => {
    let connections = 0;
    const server = createHttpsServer({ cert: readFileSync(tls.files.serverCert), key: readFileSync(tls.files.serverKey) }, (_req, res) =>
      res.end('{"tls":true}'),
    );
    server.on('secureConnection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    });
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const via = client(1_000, { ca: tls.pem.ca });
    expect(await text(via, call(url))).toBe('{"tls":true}');
    expect(await text(via, call(url))).toBe('{"tls":true}');
    expect(connections).toBe(1);
    // Without the CA the certificate is refused.
    expect(await failureOf(sendUpstream(client(), call(url)))).toMatchObject({ status: 502, code: 'upstream_unreachable' });
  });

  it('a new connection to the same upstream resumes the last TLS session', async () => {
    const resumed: boolean[] = [];
    const server = createHttpsServer({ cert: readFileSync(tls.files.serverCert), key: readFileSync(tls.files.serverKey) }, (_req, res) => {
      res.setHeader('connection', 'close'); // each request on a new connection
      res.end('{}');
    });
    server.on('secureConnection', (socket) => socket.once('data', () => resumed.push(socket.isSessionReused())));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    });
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const via = client(1_000, { ca: tls.pem.ca });
    expect(await text(via, call(url))).toBe('{}');
    expect(await text(via, call(url))).toBe('{}');
    expect(resumed).toEqual([false, true]);
  });
});
