// The upstream HTTP client alone, without the gateway: what one keep-alive POST and its whole JSON
// answer cost the client process (CPU, bytes allocated, bytes promoted per scavenge), for the
// clients the data plane could use. Each variant runs in a fresh process with the gateway's heap
// flags and --trace-gc-nvp, against one node:http server in another process, with a fixed number
// of requests in flight; variants are interleaved over the rounds (the order reversed every other
// round) and medians printed. Session 8 (issue 19) used it to judge node:http against undici.
//   CLIENTS_REQUESTS [40000] per process (a quarter more first, as warm-up), CLIENTS_INFLIGHT [32],
//   CLIENTS_ROUNDS [3], CLIENTS_VARIANTS [all: upstream-client,undici,undici-no-timeouts,node-http,llhttp-socket,socket-bound]
//   CLIENTS_ANSWER_KB [0: the mock's chat answer] an answer of about this size instead (330: an embeddings batch)
// upstream-client: the gateway's own client (server/upstream/upstream-client.ts) with a bare handler.
// llhttp-socket: a keep-alive socket per lane read by node:http's own parser (HTTPParser from
// node's _http_common, the native llhttp), with no ClientRequest, IncomingMessage or Agent: what a
// thin client on that parser would cost.
// socket-bound is not a client: a keep-alive socket per lane, the request written as one string and
// buffer, the answer's head scanned for its length only. What any client on net.Socket would at
// least cost (the kernel's part and a minimal parse), a bound for a hand-written one.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { Agent as HttpAgent, createServer, request as httpRequest } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Agent, type Dispatcher } from 'undici';
import { MAIN_THREAD_NODE_FLAGS } from '../server/app/heap-sizing.ts';
import { UpstreamClient, type UpstreamHandler } from '../server/upstream/upstream-client.ts';
import { GcTally } from './gc-tally.ts';
import { median } from './stats.ts';

const VARIANTS = ['upstream-client', 'undici', 'undici-no-timeouts', 'node-http', 'llhttp-socket', 'socket-bound'] as const;
type Variant = (typeof VARIANTS)[number];

const requests = Number(process.env.CLIENTS_REQUESTS ?? 40_000);
const inFlight = Number(process.env.CLIENTS_INFLIGHT ?? 32);
const role = process.env.CLIENTS_ROLE;

// A chat request and answer of the mock's size (or CLIENTS_ANSWER_KB of it, e.g. 330 for an
// embeddings batch), with the headers the gateway sends.
const answerKb = Number(process.env.CLIENTS_ANSWER_KB ?? 0);
const requestBody = Buffer.from(JSON.stringify({ model: 'bench-model', messages: [{ role: 'user', content: 'Say hello. '.repeat(12) }] }));
const answer = Buffer.from(
  JSON.stringify({
    id: 'chatcmpl-bench',
    object: 'chat.completion',
    created: 0,
    model: 'bench-model',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: answerKb > 0 ? 'x'.repeat(answerKb * 1024) : 'Hello! How can I help you today?' },
        finish_reason: 'stop',
      },
    ],
    usage: { prompt_tokens: 20, completion_tokens: 9, total_tokens: 29 },
  }),
);
const headers = { authorization: 'Bearer sk-bench', 'content-type': 'application/json', 'accept-encoding': 'identity', accept: 'application/json' };

function serve(): void {
  const server = createServer({ keepAlive: true }, (req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': answer.length });
      res.end(answer);
    });
  });
  server.listen(0, '127.0.0.1', () => console.log((server.address() as AddressInfo).port));
}

/** One request through the variant's client; resolves when the whole answer has been read. */
function clientFor(variant: Variant, port: number): () => Promise<void> {
  if (variant === 'socket-bound') return socketBound(port);
  if (variant === 'llhttp-socket') return parsedSocket(port);
  if (variant === 'upstream-client') {
    const upstream = new UpstreamClient(10_000);
    const target = { https: false, hostname: '127.0.0.1', port, host: `127.0.0.1:${port}`, path: '/v1/chat/completions' };
    const request = { target, headers: Object.entries(headers).flat(), body: requestBody, headersTimeout: 120_000, bodyTimeout: 300_000 };
    return () =>
      new Promise<void>((resolve, reject) => {
        const handler: UpstreamHandler = {
          onRequestStart: ignore,
          onResponseStart: ignore,
          onResponseData: ignore,
          onResponseEnd: () => resolve(),
          onResponseError: (_controller, error) => reject(error),
        };
        upstream.dispatch(request, handler);
      });
  }
  if (variant === 'node-http') {
    const agent = new HttpAgent({ keepAlive: true });
    const list = ['host', `127.0.0.1:${port}`, ...Object.entries(headers).flat(), 'content-length', String(requestBody.length)];
    return () =>
      new Promise<void>((resolve, reject) => {
        const req = httpRequest({ agent, hostname: '127.0.0.1', port, path: '/v1/chat/completions', method: 'POST', headers: list }, (res) => {
          res.on('data', ignore);
          res.on('end', resolve);
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end(requestBody);
      });
  }
  const agent = new Agent({ keepAliveTimeout: 30_000 });
  // The gateway's default first-byte and idle timeouts, or none.
  const timeouts = variant === 'undici' ? { headersTimeout: 120_000, bodyTimeout: 300_000 } : { headersTimeout: 0, bodyTimeout: 0 };
  const options = { origin: `http://127.0.0.1:${port}`, path: '/v1/chat/completions', method: 'POST' as const, headers, body: requestBody, ...timeouts };
  return () =>
    new Promise<void>((resolve, reject) => {
      const handler: Dispatcher.DispatchHandler = {
        onRequestStart: ignore,
        onResponseStart: ignore,
        onResponseData: ignore,
        onResponseEnd: () => resolve(),
        onResponseError: (_controller, error) => reject(error),
      };
      agent.dispatch(options, handler);
    });
}

/** The bound: one socket per request in flight (taken from and given back to a free list), no parser beyond the head's length. */
function socketBound(port: number): () => Promise<void> {
  const free: BoundSocket[] = [];
  const head = `POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}`;
  return () =>
    new Promise<void>((resolve, reject) => {
      const socket = free.pop() ?? new BoundSocket(port);
      socket.send(`${head}content-length: ${requestBody.length}\r\n\r\n`, requestBody, (error) => {
        if (error !== undefined) return reject(error);
        free.push(socket);
        resolve();
      });
    });
}

/** A socket per request in flight, its answers read by llhttp (Node's HTTPParser). */
function parsedSocket(port: number): () => Promise<void> {
  const free: ParsedSocket[] = [];
  const head = `POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nconnection: keep-alive\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}`;
  return () =>
    new Promise<void>((resolve, reject) => {
      const socket = free.pop() ?? new ParsedSocket(port);
      socket.send(`${head}content-length: ${requestBody.length}\r\n\r\n`, requestBody, (error) => {
        if (error !== undefined) return reject(error);
        free.push(socket);
        resolve();
      });
    });
}

interface NativeParser {
  initialize(type: number, resource: object, maxHeaderSize: number, lenient: number): void;
  execute(chunk: Buffer): number | Error;
  [callback: number]: unknown;
}
const { HTTPParser } = createRequire(import.meta.url)('_http_common') as { HTTPParser: (new () => NativeParser) & Record<string, number> };

class ParsedSocket {
  private readonly socket: Socket;
  private readonly parser: NativeParser;
  private done: ((error?: Error) => void) | undefined;
  status = 0;
  constructor(port: number) {
    this.socket = connect({ port, host: '127.0.0.1', noDelay: true });
    const parser = new HTTPParser();
    parser.initialize(HTTPParser.RESPONSE as number, {}, 0, 0);
    parser[HTTPParser.kOnHeaders as number] = ignore;
    parser[HTTPParser.kOnHeadersComplete as number] = (_major: number, _minor: number, _headers: string[], _method: unknown, _url: unknown, status: number) => {
      this.status = status;
      return 0;
    };
    parser[HTTPParser.kOnBody as number] = ignore;
    parser[HTTPParser.kOnMessageComplete as number] = () => this.done?.();
    this.parser = parser;
    this.socket.on('data', (chunk: Buffer) => {
      const result = this.parser.execute(chunk);
      if (result instanceof Error) this.done?.(result);
    });
    this.socket.on('error', (error) => this.done?.(error));
  }
  send(head: string, body: Buffer, done: (error?: Error) => void): void {
    this.done = done;
    this.socket.cork();
    this.socket.write(head, 'latin1');
    this.socket.write(body);
    this.socket.uncork();
  }
}

class BoundSocket {
  private readonly socket: Socket;
  private pending: Buffer[] = [];
  private done: ((error?: Error) => void) | undefined;
  constructor(port: number) {
    this.socket = connect({ port, host: '127.0.0.1', noDelay: true });
    this.socket.on('data', (chunk: Buffer) => this.read(chunk));
    this.socket.on('error', (error) => this.done?.(error));
  }
  send(head: string, body: Buffer, done: (error?: Error) => void): void {
    this.done = done;
    this.socket.cork();
    this.socket.write(head, 'latin1');
    this.socket.write(body);
    this.socket.uncork();
  }
  private read(chunk: Buffer): void {
    this.pending.push(chunk);
    const all = this.pending.length === 1 ? chunk : Buffer.concat(this.pending);
    const end = all.indexOf('\r\n\r\n');
    if (end === -1) return;
    const at = all.indexOf('content-length: ', 0, 'latin1');
    const length = Number(all.toString('latin1', at + 16, all.indexOf('\r\n', at)));
    if (all.length < end + 4 + length) return;
    this.pending = [];
    this.done?.();
  }
}

async function runClient(variant: Variant, port: number): Promise<void> {
  const one = clientFor(variant, port);
  const batch = async (count: number) => {
    let next = 0;
    const lane = async () => {
      while (next++ < count) await one();
    };
    await Promise.all(Array.from({ length: inFlight }, lane));
  };
  await batch(Math.ceil(requests / 4));
  console.log('measure');
  const cpu = process.cpuUsage();
  await batch(requests);
  const used = process.cpuUsage(cpu);
  console.log(JSON.stringify({ cpuMicros: used.user + used.system }));
  process.exit(0);
}

interface Sample {
  cpu: number;
  allocatedKb: number;
  promotedKb: number;
  scavengesPerK: number;
}

function runVariant(variant: Variant, port: number): Promise<Sample> {
  const self = fileURLToPath(import.meta.url);
  const child = spawn(process.execPath, [...MAIN_THREAD_NODE_FLAGS, '--trace-gc', '--trace-gc-nvp', self], {
    env: { ...process.env, CLIENTS_ROLE: 'client', CLIENTS_VARIANT: variant, CLIENTS_PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const gc = new GcTally();
  let before: ReturnType<GcTally['snapshot']> | undefined;
  return new Promise<Sample>((resolve, reject) => {
    child.once('exit', (code) => code !== 0 && reject(new Error(`${variant} exited with ${code}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.startsWith('[')) return gc.line(line);
      if (line === 'measure') return void (before = gc.snapshot());
      if (!line.startsWith('{') || before === undefined) return;
      const { cpuMicros } = JSON.parse(line) as { cpuMicros: number };
      const scavenges = gc.scavenges - before.scavenges;
      resolve({
        cpu: cpuMicros / requests,
        allocatedKb: (gc.allocated - before.allocated) / requests / 1024,
        promotedKb: scavenges === 0 ? 0 : (gc.promoted - before.promoted) / scavenges / 1024,
        scavengesPerK: (scavenges * 1000) / requests,
      });
    });
  });
}

async function compare(): Promise<void> {
  const rounds = Number(process.env.CLIENTS_ROUNDS ?? 3);
  const variants = (process.env.CLIENTS_VARIANTS?.split(',') ?? VARIANTS) as Variant[];
  const server = spawn(process.execPath, [fileURLToPath(import.meta.url)], {
    env: { ...process.env, CLIENTS_ROLE: 'server' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const port = Number(await new Promise<string>((resolve) => createInterface({ input: server.stdout! }).once('line', resolve)));
    const samples = new Map<Variant, Sample[]>(variants.map((v) => [v, []]));
    for (let round = 0; round < rounds; round++) {
      for (const variant of round % 2 === 0 ? variants : [...variants].reverse()) samples.get(variant)!.push(await runVariant(variant, port));
    }
    console.log(`${requests} requests per process, ${inFlight} in flight, ${rounds} rounds; medians (CPU of the client process only)`);
    for (const [variant, runs] of samples) {
      const m = (pick: (s: Sample) => number) => median(runs.map(pick));
      console.log(
        `${variant.padEnd(20)} cpu ${m((s) => s.cpu).toFixed(1)} µs/req  alloc ${m((s) => s.allocatedKb).toFixed(1)} KB/req  scavenges/1k req ${m((s) => s.scavengesPerK).toFixed(1)}  promoted/scavenge ${m((s) => s.promotedKb).toFixed(0)} KB  (cpu samples ${runs.map((s) => s.cpu.toFixed(1)).join(' ')})`,
      );
    }
  } finally {
    server.kill();
  }
}

function ignore(): void {}

// Last: the classes above are declared by the time a role runs.
if (role === 'server') serve();
else if (role === 'client') await runClient(process.env.CLIENTS_VARIANT as Variant, Number(process.env.CLIENTS_PORT));
else await compare();
