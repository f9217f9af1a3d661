// GET /readyz (readiness) against GET /healthz (liveness), on the real process with two workers:
// ready once started; from SIGTERM on, 503 "draining" on every worker while a long stream is still
// in flight and /healthz still says ok (server.drain_delay_ms keeps it serving that long); then the
// drain. And 503 "store_unreachable" when the governance store's file is gone.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, fetch } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { startGateway } from '../../server/app/start-gateway.ts';
import { loadConfigText } from '../../server/config/load-config.ts';
import { createLogger } from '../../server/shared/logger.ts';
import { onNewConnection } from '../support/fresh-connection.ts';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.ts';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.ts';
import { openaiStreamEvents } from '../support/openai-sse.ts';

const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function start(server: string): Promise<{ g: GatewayProcess; upstream: MockUpstream }> {
  const upstream = await startMockUpstream();
  cleanups.push(() => upstream.close());
  const g = await startGatewayProcess(
    [
      'listen: 127.0.0.1:0',
      'admin_listen: 127.0.0.1:0',
      'catalog: ./providers.yaml',
      'log_level: info',
      'workers: 2',
      'providers: { openai: { api_key: { env: READY_TEST_KEY } } }',
      'models: { gpt: { provider: openai, model: gpt-4.1-mini } }',
      `server: ${server}`,
    ].join('\n') + '\n',
    { env: { READY_TEST_KEY: 'sk-upstream' }, files: { 'providers.yaml': `openai: { base_url: ${upstream.url}/v1 }\n` } },
  );
  cleanups.push(() => {
    if (g.child.exitCode === null && g.child.signalCode === null) g.child.kill('SIGKILL');
  });
  return { g, upstream };
}

/** Six probes, each on a connection of its own, so both workers answer some. */
const probeAll = (url: string, path: string) => Promise.all(Array.from({ length: 6 }, () => onNewConnection(`${url}${path}`)));

describe('GET /readyz', () => {
  it('says ready once started, then 503 draining from SIGTERM while a stream is in flight; /healthz stays ok', async () => {
    const { g, upstream } = await start('{ drain_delay_ms: 2500, shutdown_timeout_ms: 10000 }');
    const ready = await probeAll(g.dataUrl, '/readyz');
    expect(ready.map((r) => [r.status, JSON.parse(r.body)])).toEqual(ready.map(() => [200, { status: 'ready' }]));

    // A stream of 12 pieces 300 ms apart (3.6 s): in flight through the delay, finished within the drain.
    upstream.enqueue({ events: openaiStreamEvents(Array.from({ length: 12 }, (_, i) => `p${i} `)), delayMs: 300 });
    const agent = new Agent();
    cleanups.push(() => agent.close());
    const res = await fetch(`${g.dataUrl}/v1/chat/completions`, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-client' },
      body: JSON.stringify({ model: 'gpt', stream: true, messages: [{ role: 'user', content: 'long' }] }),
    });
    expect(res.status).toBe(200);
    let finished = false;
    const body = res.text().finally(() => (finished = true));
    g.child.kill('SIGTERM');
    await expect.poll(() => g.lines.some((l) => l.msg === 'shutting down'), { timeout: 5000 }).toBe(true);

    const draining = await probeAll(g.dataUrl, '/readyz');
    for (const probe of draining) {
      expect(probe.status).toBe(503);
      expect(JSON.parse(probe.body)).toMatchObject({ status: 'not_ready', reason: 'draining' });
    }
    // Liveness is unchanged: the process is alive and answering.
    const live = await probeAll(g.dataUrl, '/healthz');
    expect(live.map((r) => [r.status, JSON.parse(r.body)])).toEqual(live.map(() => [200, { status: 'ok' }]));
    expect(finished).toBe(false); // all of it while the stream was still in flight

    expect(await body).toContain('p11 ');
    expect(await body).toContain('[DONE]');
    expect((await g.exited()).code).toBe(0);
    expect(g.lines.find((l) => l.msg === 'shutting down')).toMatchObject({ drainDelayMs: 2500, deadlineMs: 10000 });
  }, 30_000);

  it('without a drain delay, the drain begins at once: no new connection is taken', async () => {
    const { g, upstream } = await start('{ shutdown_timeout_ms: 10000 }');
    upstream.enqueue({ events: openaiStreamEvents(Array.from({ length: 8 }, (_, i) => `p${i} `)), delayMs: 300 });
    const agent = new Agent();
    cleanups.push(() => agent.close());
    const res = await fetch(`${g.dataUrl}/v1/chat/completions`, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-client' },
      body: JSON.stringify({ model: 'gpt', stream: true, messages: [{ role: 'user', content: 'long' }] }),
    });
    const body = res.text();
    g.child.kill('SIGTERM');
    await expect.poll(() => g.lines.some((l) => l.msg === 'shutting down'), { timeout: 5000 }).toBe(true);
    await expect
      .poll(
        async () =>
          onNewConnection(`${g.dataUrl}/readyz`).then(
            (r) => r.status,
            (e: NodeJS.ErrnoException) => e.code,
          ),
        { timeout: 5000 },
      )
      .toBe('ECONNREFUSED');
    expect(await body).toContain('[DONE]');
    expect((await g.exited()).code).toBe(0);
  }, 30_000);

  it('says 503 store_unreachable when the governance store file is gone, while /healthz says ok', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gateway-ready-'));
    const config = loadConfigText(
      `listen: 127.0.0.1:0\nadmin_listen: 127.0.0.1:0\ngovernance: on\ndb_path: ${join(dir, 'gateway.db')}\nmodels: { demo: { provider: demo, model: demo-echo } }\n`,
      '/virtual/config.yaml',
      '/virtual',
      { env: {} },
    );
    const gateway = await startGateway(config, { log: createLogger('silent'), workers: 1 });
    cleanups.push(() => gateway.close(0));
    expect((await onNewConnection(`${gateway.dataUrl}/readyz`)).status).toBe(200);
    rmSync(join(dir, 'gateway.db'));
    await expect
      .poll(async () => JSON.parse((await onNewConnection(`${gateway.dataUrl}/readyz`)).body), { timeout: 8000, interval: 250 })
      .toMatchObject({ status: 'not_ready', reason: 'store_unreachable' });
    expect((await onNewConnection(`${gateway.dataUrl}/healthz`)).status).toBe(200);
  }, 15_000);
});
