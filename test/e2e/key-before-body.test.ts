// Attack: without a valid key, send (or withhold the end of) huge bodies. The gateway once read,
// parsed and validated every body before checking the key: 40 connections each withholding the
// last byte of 30 MB took RSS from 210 MB to 1.4 GB, and eight senders of 14 MB bodies moved a
// legitimate client's p99 from 137 ms to 1.8 s. The key is now checked from the headers: a
// refusal is sent without reading the body, and the connection is closed. Bodies that are read
// share a bounded amount of memory per serving thread; beyond it, 503 with Retry-After.
import Anthropic from '@anthropic-ai/sdk';
import { spawn } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/gateway-harness.ts';

const MIB = 1024 * 1024;
let h: Harness;
let port: number;
let key: { id: string; secret: string };
beforeAll(async () => {
  h = await startHarness({
    extraYaml: `db_path: ./gateway.db\ngovernance: on\nlimits: { max_request_bytes: ${32 * MIB}, max_request_bytes_in_flight: ${64 * MIB} }\n`,
  });
  port = Number(new URL(h.url).port);
  const res = await fetch(`${h.adminUrl}/api/v1/admin/keys`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({}) });
  key = (await res.json()) as { id: string; secret: string };
});
afterAll(() => h.close());

interface RawAnswer {
  readonly head: string;
  readonly body: string;
  /** The server closed the connection (end or reset) after answering. */
  readonly closedByServer: Promise<void>;
}

/**
 * A POST on a raw connection declaring `declared` body bytes but sending only `send` of them (a
 * shared buffer, so the client side holds it once), resolved with the answer's head and body.
 */
function rawPost(path: string, headers: Record<string, string>, declared: number, send: Buffer, socket = connect(port, '127.0.0.1')): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    let received = '';
    let closed: () => void = () => {};
    const closedByServer = new Promise<void>((r) => (closed = r));
    socket.on('error', () => closed()); // a reset once the answer was read is a close too
    socket.on('close', () => closed());
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number(/content-length: (\d+)/i.exec(received.slice(0, end))?.[1] ?? -1);
      if (length >= 0 && received.length >= end + 4 + length)
        resolve({ head: received.slice(0, end), body: received.slice(end + 4, end + 4 + length), closedByServer });
    });
    socket.on('close', () => reject(new Error(`closed before a whole answer: ${JSON.stringify(received.slice(0, 200))}`)));
    const lines = Object.entries({ host: 'gateway', 'content-type': 'application/json', 'content-length': String(declared), ...headers })
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('');
    socket.write(`POST ${path} HTTP/1.1\r\n${lines}\r\n`);
    socket.write(send, () => {});
  });
}

const OPENAI_BODY = (extra = '') => `{"model":"gpt","messages":[{"role":"user","content":"hi${extra}"}]}`;

describe('the key is checked before the body is read', () => {
  it("an invalid or missing key gets its 401 in the client's protocol from official SDKs", async () => {
    const openai = new OpenAI({ baseURL: `${h.url}/v1`, apiKey: 'gwk_not-a-key', maxRetries: 0 });
    await expect(openai.chat.completions.create({ model: 'gpt', messages: [{ role: 'user', content: 'x' }] })).rejects.toBeInstanceOf(
      OpenAI.AuthenticationError,
    );
    const anthropic = new Anthropic({ baseURL: h.url, apiKey: 'gwk_not-a-key', maxRetries: 0 });
    await expect(anthropic.messages.create({ model: 'claude', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] })).rejects.toBeInstanceOf(
      Anthropic.AuthenticationError,
    );
    const gemini = await fetch(`${h.url}/v1beta/models/gpt:generateContent?key=wrong`, {
      method: 'POST',
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'x' }] }] }),
    });
    expect(gemini.status).toBe(401);
    expect(((await gemini.json()) as { error: { status: string } }).error.status).toBe('UNAUTHENTICATED');
    expect(gemini.headers.get('connection')).toBe('close');
    expect(h.upstream.requests).toHaveLength(0);
  });

  it('answers 401 with connection: close while the body is still being withheld, then closes the connection', async () => {
    const answer = await rawPost('/v1/chat/completions', { authorization: 'Bearer gwk_wrong' }, 30 * MIB, Buffer.from('{"model":"gpt","messages":['));
    expect(answer.head).toMatch(/^HTTP\/1\.1 401/);
    expect(answer.head).toMatch(/\r\nconnection: close/i);
    expect((JSON.parse(answer.body) as { error: { code: string } }).error.code).toBe('invalid_api_key');
    await answer.closedByServer;
  });

  it('count_tokens, refused before its body is read (no key, or a body declared over max_request_bytes), closes the connection as chat does', async () => {
    const anonymous = await rawPost('/v1/messages/count_tokens', { 'x-api-key': 'gwk_wrong' }, 30 * MIB, Buffer.from('{"model":'));
    expect(anonymous.head).toMatch(/^HTTP\/1\.1 401/);
    expect(anonymous.head).toMatch(/\r\nconnection: close/i);
    await anonymous.closedByServer;
    const tooLarge = await rawPost('/v1/messages/count_tokens', { 'x-api-key': key.secret }, 33 * MIB, Buffer.from('{"model":'));
    expect(tooLarge.head).toMatch(/^HTTP\/1\.1 413/);
    expect(tooLarge.head).toMatch(/\r\nconnection: close/i);
    expect((JSON.parse(tooLarge.body) as { type: string; error: { type: string } }).type).toBe('error'); // Anthropic's shape
    await tooLarge.closedByServer;
    expect(h.upstream.requests).toHaveLength(0);
  });

  it("a key revoked while its request's body is still arriving is refused once the body is read", async () => {
    const created = await fetch(`${h.adminUrl}/api/v1/admin/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({}),
    });
    const doomed = (await created.json()) as { id: string; secret: string };
    const whole = OPENAI_BODY();
    const socket = connect(port, '127.0.0.1');
    const pending = rawPost('/v1/chat/completions', { authorization: `Bearer ${doomed.secret}` }, whole.length, Buffer.from(whole.slice(0, -1)), socket);
    await new Promise((resolve) => setTimeout(resolve, 100)); // authorized from its headers by now
    await fetch(`${h.adminUrl}/api/v1/admin/keys/${doomed.id}`, { method: 'DELETE' });
    socket.write('}');
    const answer = await pending;
    expect(answer.head).toMatch(/^HTTP\/1\.1 401/);
    expect((JSON.parse(answer.body) as { error: { code: string } }).error.code).toBe('key_revoked');
    socket.destroy();
  });

  it('40 connections with an invalid key, each withholding the last byte of a 30 MB body, barely move RSS and all get 401', async () => {
    const body = Buffer.alloc(30 * MIB - 1, 0x61); // one buffer, written by every connection
    globalThis.gc?.();
    const before = process.memoryUsage.rss();
    const sockets: Socket[] = [];
    const answers = await Promise.all(
      Array.from({ length: 40 }, () => {
        const socket = connect(port, '127.0.0.1');
        sockets.push(socket);
        return rawPost('/v1/chat/completions', { authorization: 'Bearer gwk_wrong' }, 30 * MIB, body, socket);
      }),
    );
    const during = process.memoryUsage.rss();
    expect(answers.every((a) => a.head.startsWith('HTTP/1.1 401'))).toBe(true);
    await Promise.all(answers.map((a) => a.closedByServer));
    const grown = (Math.max(during, process.memoryUsage.rss()) - before) / MIB;
    console.log(`RSS: ${Math.round(before / MIB)} MiB before, ${Math.round(during / MIB)} MiB with 40 withheld 30 MB bodies (grew ${grown.toFixed(1)} MiB)`);
    expect(grown).toBeLessThan(150); // reading them would take 1,200 MiB
    for (const socket of sockets) socket.destroy();
  });
});

describe('request bodies in flight share a bounded amount of memory', () => {
  it("past max_request_bytes_in_flight, 503 with Retry-After in the client's protocol, without reading; room again once they end", async () => {
    // Two valid requests each declare 30 MiB and hold their last byte back: 60 of 64 MiB held.
    const whole = OPENAI_BODY('x'.repeat(30 * MIB - OPENAI_BODY().length));
    const part = Buffer.from(whole.slice(0, -1)); // the last '}' comes later
    const held = [connect(port, '127.0.0.1'), connect(port, '127.0.0.1')];
    const pending = held.map((socket) => rawPost('/v1/chat/completions', { authorization: `Bearer ${key.secret}` }, 30 * MIB, part, socket));
    await new Promise((resolve) => setTimeout(resolve, 300));

    const anthropic = await rawPost('/v1/messages', { 'x-api-key': key.secret }, 10 * MIB, Buffer.from('{"model":'));
    expect(anthropic.head).toMatch(/^HTTP\/1\.1 503/);
    expect(anthropic.head).toMatch(/\r\nretry-after: 1/i);
    expect(anthropic.head).toMatch(/\r\nconnection: close/i);
    expect((JSON.parse(anthropic.body) as { type: string; error: { type: string } }).type).toBe('error'); // Anthropic's shape
    await anthropic.closedByServer;

    const openai = new OpenAI({ baseURL: `${h.url}/v1`, apiKey: key.secret, maxRetries: 0 });
    const refused = await openai.chat.completions.create({ model: 'gpt', messages: [{ role: 'user', content: 'x'.repeat(5 * MIB) }] }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.APIError);
    expect((refused as InstanceType<typeof OpenAI.APIError>).status).toBe(503);

    // The held bodies end: both are served, and their memory is free again.
    for (const socket of held) socket.write('}');
    const served = await Promise.all(pending);
    expect(served.map((a) => a.head.slice(0, 12))).toEqual(['HTTP/1.1 200', 'HTTP/1.1 200']);
    const after = await openai.chat.completions.create({ model: 'gpt', messages: [{ role: 'user', content: 'x'.repeat(5 * MIB) }] });
    expect(after.choices[0]!.message.content).toBeTruthy();
    for (const socket of held) socket.destroy();
  });
});

/** Eight processes sending 14 MB bodies with an invalid key, each in a loop, until killed. */
const ATTACKER = `
const net = require('node:net');
const body = Buffer.alloc(14 * 1024 * 1024, 0x61);
let sent = 0;
const head = 'POST /v1/chat/completions HTTP/1.1\\r\\nhost: g\\r\\nauthorization: Bearer gwk_wrong\\r\\ncontent-type: application/json\\r\\ncontent-length: ' + body.length + '\\r\\n\\r\\n';
async function loop() {
  for (;;) {
    await new Promise((done) => {
      const s = net.connect(Number(process.argv[1]), '127.0.0.1', () => { s.write(head); s.write(body, () => {}); });
      s.on('data', () => {});
      s.on('error', () => {});
      s.on('close', () => { sent++; done(); });
    });
  }
}
for (let i = 0; i < 8; i++) loop();
setInterval(() => process.stdout.write(sent + '\\n'), 100);
`;

/** Latency (ms) of each of `count` legitimate requests, one after another. */
async function latencies(count: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    const res = await fetch(`${h.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${key.secret}` }, body: OPENAI_BODY() });
    await res.arrayBuffer();
    expect(res.status).toBe(200);
    samples.push(performance.now() - start);
  }
  return samples;
}

function p99(samples: readonly number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.ceil(sorted.length * 0.99) - 1]!;
}

/** One measurement: quiet and attacked blocks alternate (attackers stopped, then continued), so both see the same background load. */
async function measure(attackers: ReturnType<typeof spawn>): Promise<{ quiet: number; attacked: number }> {
  const quiet: number[] = [];
  const attacked: number[] = [];
  for (let round = 0; round < 3; round++) {
    attackers.kill('SIGSTOP');
    await new Promise((resolve) => setTimeout(resolve, 50));
    quiet.push(...(await latencies(40)));
    attackers.kill('SIGCONT');
    await new Promise((resolve) => setTimeout(resolve, 50));
    attacked.push(...(await latencies(40)));
  }
  return { quiet: p99(quiet), attacked: p99(attacked) };
}

describe('unauthenticated large bodies beside a legitimate client', () => {
  it("8 senders of 14 MB bodies with an invalid key leave a legitimate client's p99 within 2x of its quiet p99", async () => {
    await latencies(20); // warm up
    const attackers = spawn(process.execPath, ['-e', ATTACKER, String(port)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let refusedBodies = 0;
    attackers.stdout.on('data', (chunk: Buffer) => (refusedBodies = Number(chunk.toString().trim().split('\n').pop())));
    const trials: { quiet: number; attacked: number }[] = [];
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      // On a shared machine one p99 of 120 samples is noisy (about 1.4x between two quiet runs):
      // up to three measurements, passing on the first within 2x. A gateway that reads those
      // bodies (what this guards against) misses it by far more, every time.
      for (let trial = 0; trial < 3; trial++) {
        trials.push(await measure(attackers));
        if (trials.at(-1)!.attacked <= 2 * trials.at(-1)!.quiet) break;
      }
      // The attack really ran: its senders kept being refused (slowly on a loaded machine, where
      // a pass can come before many refusals have).
      await expect.poll(() => refusedBodies, { timeout: 20_000, interval: 100 }).toBeGreaterThan(16);
    } finally {
      attackers.kill('SIGKILL');
    }
    console.log(
      `legitimate p99 (quiet / under attack): ${trials.map((t) => `${t.quiet.toFixed(1)} / ${t.attacked.toFixed(1)} ms`).join('; ')} (${refusedBodies} attacking requests refused)`,
    );
    const last = trials.at(-1)!;
    expect(last.attacked).toBeLessThanOrEqual(2 * last.quiet);
  }, 90_000);
});
