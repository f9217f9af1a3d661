// SIGTERM drains with a deadline (server.shutdown_timeout_ms), on the real process with two
// data-plane workers: under steady keep-alive load it exits well within the deadline; a stream
// still in flight at the deadline is cut; a second signal stops at once. Exit code and log say which.
import { Agent, fetch, type Response } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.ts';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.ts';
import { openaiStreamEvents } from '../support/openai-sse.ts';
import { openRaw } from '../support/raw-connection.ts';

// Each test has its own gateway and upstream: a failed test's leftovers cannot take the next one's replies.
const running: { g: GatewayProcess; upstream: MockUpstream }[] = [];
afterEach(async () => {
  for (const { g, upstream } of running.splice(0)) {
    if (g.child.exitCode === null && g.child.signalCode === null) g.child.kill('SIGKILL'); // a failed test's leftover
    await upstream.close();
  }
});

async function start(shutdownMs: number, headerMs = 15_000): Promise<{ g: GatewayProcess; upstream: MockUpstream }> {
  const upstream = await startMockUpstream();
  const g = await startGatewayProcess(
    [
      'listen: 127.0.0.1:0',
      'admin_listen: 127.0.0.1:0',
      'catalog: ./providers.yaml',
      'log_level: info',
      'workers: 2',
      'providers: { openai: { api_key: { env: STOP_TEST_KEY } } }',
      'models: { gpt: { provider: openai, model: gpt-4.1-mini } }',
      `server: { shutdown_timeout_ms: ${shutdownMs}, header_timeout_ms: ${headerMs} }`,
    ].join('\n') + '\n',
    { env: { STOP_TEST_KEY: 'sk-upstream' }, files: { 'providers.yaml': `openai: { base_url: ${upstream.url}/v1 }\n` } },
  );
  running.push({ g, upstream });
  return { g, upstream };
}

const chat = (url: string, dispatcher: Agent, stream = false) =>
  fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-client' },
    body: JSON.stringify({ model: 'gpt', stream, messages: [{ role: 'user', content: 'hello' }] }),
    dispatcher,
  });

/** A stream of 40 pieces 500 ms apart: 20 s, longer than any deadline here. */
function enqueueLongStream(upstream: MockUpstream): void {
  upstream.enqueue({ events: openaiStreamEvents(Array.from({ length: 40 }, (_, i) => `p${i} `)), delayMs: 500 });
}

/** Reads a streaming answer until it ends or breaks; resolves with the text read. */
async function readAll(res: Response): Promise<{ text: string; broke: boolean }> {
  let text = '';
  const decoder = new TextDecoder();
  try {
    for await (const chunk of res.body as AsyncIterable<Uint8Array>) text += decoder.decode(chunk, { stream: true });
    return { text, broke: false };
  } catch {
    return { text, broke: true };
  }
}

const msgs = (g: GatewayProcess) => g.lines.map((l) => l.msg);

describe('SIGTERM', () => {
  it('under steady keep-alive load, closes connections as answers end and exits 0 within the deadline', async () => {
    const deadlineMs = 4000;
    const { g } = await start(deadlineMs, 1000);
    const agent = new Agent({ keepAliveTimeout: 60_000, connections: 4 });
    let stop = false;
    let answered = 0;
    let afterSignal = 0;
    let signalled = false;
    const loop = async () => {
      while (!stop) {
        try {
          const res = await chat(g.dataUrl, agent);
          await res.arrayBuffer();
          if (res.status === 200) answered++;
          if (signalled) afterSignal++;
        } catch {
          if (signalled || stop) return; // closed, or no longer accepting: this client is done
        }
      }
    };
    const load = Array.from({ length: 16 }, loop);
    try {
      await expect.poll(() => answered, { timeout: 20_000, interval: 100 }).toBeGreaterThan(20);
    } catch (error) {
      stop = true;
      throw error;
    }
    // A connection that never sends a request is closed at the header time, not held to the deadline.
    const silent = openRaw(g.dataUrl);
    await silent.connected;
    const signalledAt = performance.now();
    signalled = true;
    g.child.kill('SIGTERM');
    const exit = await g.exited();
    const tookMs = performance.now() - signalledAt;
    expect((await silent.closed).afterMs).toBeLessThan(deadlineMs);
    stop = true;
    await Promise.all(load);
    await agent.close();
    expect(exit.code).toBe(0);
    expect(tookMs).toBeLessThan(deadlineMs + 1500);
    expect(afterSignal).toBeLessThan(200); // the load did not keep it serving
    expect(msgs(g)).toContain('shutdown complete: every request in flight finished');
    expect(g.lines.find((l) => String(l.msg).startsWith('shutdown complete'))).toMatchObject({ cut: 0 });
  }, 30_000);

  it('lets an answer in flight finish, marked connection: close', async () => {
    const { g, upstream } = await start(10_000);
    const agent = new Agent({ keepAliveTimeout: 60_000 });
    const answer =
      '{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"slow"},"finish_reason":"stop","logprobs":null}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}';
    upstream.enqueue({ headers: { 'content-type': 'application/json' }, events: [answer.slice(0, 10), answer.slice(10)], delayMs: 800 });
    const inFlight = chat(g.dataUrl, agent);
    await new Promise((resolve) => setTimeout(resolve, 300));
    g.child.kill('SIGTERM');
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(res.headers.get('connection')).toBe('close');
    expect(((await res.json()) as { choices: { message: { content: string } }[] }).choices[0]?.message.content).toBe('slow');
    expect((await g.exited()).code).toBe(0);
    await agent.close();
  }, 30_000);

  it('cuts a stream still in flight at the deadline, flushes, and exits 3', async () => {
    const deadlineMs = 1500;
    const { g, upstream } = await start(deadlineMs);
    const agent = new Agent();
    enqueueLongStream(upstream);
    const res = await chat(g.dataUrl, agent, true);
    expect(res.status).toBe(200);
    const reading = readAll(res);
    await new Promise((resolve) => setTimeout(resolve, 700));
    const signalledAt = performance.now();
    g.child.kill('SIGTERM');
    const exit = await g.exited();
    const tookMs = performance.now() - signalledAt;
    const read = await reading;
    await agent.close();
    expect(exit.code).toBe(3);
    expect(tookMs).toBeGreaterThanOrEqual(deadlineMs - 100);
    expect(tookMs).toBeLessThan(deadlineMs + 3000);
    expect(read.text).toContain('p0 ');
    expect(read.text).not.toContain('[DONE]'); // cut, not finished
    expect(g.lines.find((l) => l.msg === 'shutdown complete: the deadline cut connections still in flight')).toMatchObject({ cut: 1, deadlineMs });
    // The cut request was still recorded (its log line, from the main thread's observers) before the exit.
    expect(g.lines.find((l) => l.model === 'gpt' && l.stream === true)).toMatchObject({ clientGone: true });
  }, 30_000);

  it('a second signal stops at once', async () => {
    const { g, upstream } = await start(30_000);
    const agent = new Agent();
    enqueueLongStream(upstream);
    const res = await chat(g.dataUrl, agent, true);
    const reading = readAll(res);
    await new Promise((resolve) => setTimeout(resolve, 500));
    g.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const secondAt = performance.now();
    g.child.kill('SIGINT');
    const exit = await g.exited();
    expect(performance.now() - secondAt).toBeLessThan(1000);
    await reading;
    await agent.close();
    expect(exit.code).toBe(130);
    expect(msgs(g)).toContain('second signal: stopping at once');
  }, 30_000);
});
