// The upstream HTTP client alone, without the gateway: what one keep-alive POST and its whole JSON
// answer cost the client process (CPU, bytes allocated, bytes promoted per scavenge), for the
// clients the data plane could use. Each variant runs in a fresh process with the gateway's heap
// flags and --trace-gc-nvp, against one node:http server in another process, with a fixed number
// of requests in flight; variants are interleaved over the rounds (the order reversed every other
// round) and medians printed. Session 8 (issue 19) used it to judge node:http against undici.
//   CLIENTS_REQUESTS [40000] per process (a quarter more first, as warm-up), CLIENTS_INFLIGHT [32],
//   CLIENTS_ROUNDS [3], CLIENTS_VARIANTS [all: undici,undici-no-timeouts,node-http]
import { spawn } from 'node:child_process';
import { Agent as HttpAgent, createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Agent, type Dispatcher } from 'undici';
import { MAIN_THREAD_NODE_FLAGS } from '../server/app/heap-sizing.ts';
import { GcTally } from './gc-tally.ts';
import { median } from './stats.ts';

const VARIANTS = ['undici', 'undici-no-timeouts', 'node-http'] as const;
type Variant = (typeof VARIANTS)[number];

const requests = Number(process.env.CLIENTS_REQUESTS ?? 40_000);
const inFlight = Number(process.env.CLIENTS_INFLIGHT ?? 32);
const role = process.env.CLIENTS_ROLE;

// A chat request and answer of the mock's size, with the headers the gateway sends.
const requestBody = Buffer.from(JSON.stringify({ model: 'bench-model', messages: [{ role: 'user', content: 'Say hello. '.repeat(12) }] }));
const answer = Buffer.from(
  JSON.stringify({
    id: 'chatcmpl-bench',
    object: 'chat.completion',
    created: 0,
    model: 'bench-model',
    choices: [{ index: 0, message: { role: 'assistant', content: 'Hello! How can I help you today?' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 20, completion_tokens: 9, total_tokens: 29 },
  }),
);
const headers = { authorization: 'Bearer sk-bench', 'content-type': 'application/json', 'accept-encoding': 'identity', accept: 'application/json' };

if (role === 'server') serve();
else if (role === 'client') await runClient(process.env.CLIENTS_VARIANT as Variant, Number(process.env.CLIENTS_PORT));
else await compare();

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
