// server.max_connections: at the cap a new connection displaces the longest-waiting one; when
// every connection has a request in flight, a new request gets 503 with Retry-After (GET /healthz
// still answers), and past the reserve a connection is closed at once. The admin plane, a server
// of its own, answers throughout.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionCap } from '../../server/app/connection-cap.ts';
import { onNewConnection } from '../support/fresh-connection.ts';
import { startHarness, type Harness } from '../support/gateway-harness.ts';
import { openRaw, rawJsonBody, type RawConnection } from '../support/raw-connection.ts';

const CAP = 20;
/** Overflow connections read and refused before the rest are closed at once: max(16, cap / 16). */
const RESERVE = 16;
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ extraYaml: `server: { max_connections: ${CAP}, header_timeout_ms: 5000, request_timeout_ms: 8000 }\n` });
});
afterAll(() => h.close());

const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

async function openMany(n: number, first?: string): Promise<RawConnection[]> {
  const all = Array.from({ length: n }, () => openRaw(h.url, first));
  await Promise.all(all.map((c) => c.connected));
  await settle(); // the server has taken them in
  return all;
}

const adminAnswers = async () => (await fetch(`${h.adminUrl}/api/v1/admin/info`)).status;

describe('connection cap', () => {
  it('a full data plane of idle connections still lets /healthz and the admin plane answer, displacing the longest idle', async () => {
    const idle = await openMany(CAP);
    const health = await onNewConnection(`${h.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await adminAnswers()).toBe(200);
    const first = await Promise.race([idle[0]!.closed, settle().then(() => undefined)]);
    expect(first).toBeDefined(); // the first one opened waited longest
    expect(idle.slice(1).every((c) => !c.socket.destroyed)).toBe(true);
    for (const c of idle) c.socket.destroy();
    await settle();
  });

  it('with every connection busy, refuses a new request with 503 and Retry-After in the OpenAI shape, still answers /healthz, and closes past the reserve', async () => {
    const head = 'POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{';
    const busy = await openMany(CAP, head);
    const reserve: RawConnection[] = [];
    try {
      const refused = openRaw(h.url, 'POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}');
      const answer = await refused.closed;
      expect(answer.text).toMatch(/^HTTP\/1\.1 503 /);
      expect(answer.text.toLowerCase()).toContain('retry-after: 1');
      expect(rawJsonBody(answer.text)).toMatchObject({ error: { code: 'too_many_connections', message: expect.stringContaining('connection limit') } });

      const anthropicShape = openRaw(h.url, 'POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}');
      expect(rawJsonBody((await anthropicShape.closed).text)).toMatchObject({ type: 'error', error: { type: expect.any(String) } });

      expect((await onNewConnection(`${h.url}/healthz`)).status).toBe(200);
      expect(await onNewConnection(`${h.url}/readyz`)).toMatchObject({ status: 200, body: '{"status":"ready"}' }); // probes are never refused
      expect(await adminAnswers()).toBe(200);

      // The reserve of connections that are read and refused is full of silent ones: one more is closed unread.
      reserve.push(...(await openMany(RESERVE)));
      const beyond = openRaw(h.url);
      const closedAtOnce = await Promise.race([beyond.closed, new Promise((resolve) => setTimeout(() => resolve(undefined), 1000))]);
      expect(closedAtOnce).toMatchObject({ text: '' });
      expect(await adminAnswers()).toBe(200);
    } finally {
      for (const c of [...busy, ...reserve]) c.socket.destroy();
    }
    await settle();
    // Room again: an ordinary request is served.
    const served = await onNewConnection(`${h.url}/v1/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'gpt', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(served.status).toBe(200);
  });
});

describe('max_connections: auto', () => {
  it('is 40% of the open-file limit, shared among the workers', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gateway-limits-'));
    const file = join(dir, 'limits');
    writeFileSync(
      file,
      'Limit                     Soft Limit           Hard Limit           Units\nMax open files            20000                20000                files\n',
    );
    expect(connectionCap('auto', 1, file)).toBe(8000);
    expect(connectionCap('auto', 4, file)).toBe(2000);
    expect(connectionCap(123, 4, file)).toBe(123);
    expect(connectionCap('auto', 2, join(dir, 'missing'))).toBe(4096);
  });
});
