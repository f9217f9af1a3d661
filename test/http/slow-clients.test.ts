// Slow and idle clients are bounded (server.header_timeout_ms, request_timeout_ms,
// keep_alive_timeout_ms), each cut near its limit with a 408 in the OpenAI error shape; many at
// once do not hold the gateway.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/gateway-harness.ts';
import { openRaw, rawJsonBody } from '../support/raw-connection.ts';

const HEADER_MS = 1000;
const REQUEST_MS = 1500;
const KEEP_ALIVE_MS = 1000;
/** Node checks the header and request timers every quarter of the header time; plus scheduling. */
const SLACK_MS = 1200;
const STALLED = 200;
let h: Harness;

beforeAll(async () => {
  h = await startHarness({
    extraYaml: `server: { header_timeout_ms: ${HEADER_MS}, request_timeout_ms: ${REQUEST_MS}, keep_alive_timeout_ms: ${KEEP_ALIVE_MS} }\n`,
  });
});
afterAll(() => h.close());

/**
 * How long STALLED connections that ask for /healthz take, right now, to be answered and closed
 * (connect, accept, answer, close, all in this process beside the gateway): the machine's load,
 * measured in the same run. Closing that many stalled ones at their limit takes about as long on
 * top of it, so it widens the bound on a loaded machine and adds next to nothing on a quiet one.
 */
async function busyMs(): Promise<number> {
  const quick = Array.from({ length: STALLED }, () => openRaw(h.url, 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
  const ends = await Promise.all(quick.map((c) => c.closed));
  for (const end of ends) expect(end.text).toMatch(/^HTTP\/1\.1 200 /);
  return Math.max(...ends.map((e) => e.afterMs));
}

function expect408(text: string): void {
  expect(text).toMatch(/^HTTP\/1\.1 408 /);
  expect(rawJsonBody(text)).toMatchObject({ error: { code: 'request_timeout', type: expect.any(String), message: expect.any(String) } });
}

describe('slow and idle clients', () => {
  it('cuts 200 connections stalled in their headers (or silent) at the header time', async () => {
    const busy = await busyMs();
    const stalled = Array.from({ length: STALLED }, (_, i) => openRaw(h.url, i % 2 === 0 ? 'POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n' : undefined));
    const ends = await Promise.all(stalled.map((c) => c.closed));
    for (const end of ends) {
      expect(end.afterMs).toBeGreaterThanOrEqual(HEADER_MS - 50);
      expect(end.afterMs).toBeLessThan(HEADER_MS + SLACK_MS + busy);
      expect408(end.text);
    }
  });

  it('cuts 200 connections stalled in their bodies at the request time', async () => {
    const head = 'POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"model":"gpt",';
    const busy = await busyMs();
    const stalled = Array.from({ length: STALLED }, () => openRaw(h.url, head));
    const ends = await Promise.all(stalled.map((c) => c.closed));
    for (const end of ends) {
      expect(end.afterMs).toBeGreaterThanOrEqual(REQUEST_MS - 50);
      expect(end.afterMs).toBeLessThan(REQUEST_MS + SLACK_MS + busy);
      expect408(end.text);
    }
    expect(h.upstream.requests).toHaveLength(0);
  });

  it('closes a kept-alive connection left idle after its answer', async () => {
    const idle = openRaw(h.url, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    const end = await idle.closed;
    expect(end.text).toMatch(/^HTTP\/1\.1 200 /);
    expect(end.text).toContain('Keep-Alive: timeout=1');
    // Node grants one second beyond the announced keep-alive time before closing.
    expect(end.afterMs).toBeGreaterThanOrEqual(KEEP_ALIVE_MS - 50);
    expect(end.afterMs).toBeLessThan(KEEP_ALIVE_MS + 1000 + SLACK_MS);
  });

  it('still answers a client that sends at an ordinary pace', async () => {
    const res = await fetch(`${h.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer x', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(200);
  });
});
