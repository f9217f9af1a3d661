// With two data-plane workers, what the gateway reports adds up over both: GET /metrics (scraped
// from whichever worker the connection lands on), GET /stats, webhook events (one per request,
// sent from the main thread) and the gate counters in the hooks list.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onNewConnection } from '../support/fresh-connection.ts';
import { startHarness, type Harness } from '../support/gateway-harness.ts';
import { answerJson, startHookReceiver, type HookReceiver } from '../support/hook-receiver.ts';

let receiver: HookReceiver;
let h: Harness;
beforeAll(async () => {
  receiver = await startHookReceiver((call, res) => answerJson(res, 200, call.path.startsWith('/gate') ? { allow: true } : {}));
  h = await startHarness({
    workers: 2,
    extraYaml: `hooks:
  - { name: policy, kind: gate, url: "${receiver.url}/gate", on_error: deny }
  - { name: audit, kind: webhook, url: "${receiver.url}/events" }
`,
  });
});
afterAll(async () => {
  await h.close();
  await receiver.close();
});

const N = 40;

describe('observability with two workers', () => {
  it('counts every request once, whichever worker served it', async () => {
    const body = JSON.stringify({ model: 'gpt', messages: [{ role: 'user', content: 'x' }] });
    const results = await Promise.all(Array.from({ length: N }, () => onNewConnection(`${h.url}/v1/chat/completions`, { method: 'POST', body })));
    expect(results.every((r) => r.status === 200)).toBe(true);
    const served = await h.gateway.workerTelemetry();
    expect(served.every((w) => w.requests > 0)).toBe(true);

    // Webhook events: one per request, all delivered by the main thread's queue.
    const deadline = Date.now() + 5000;
    while (receiver.calls.filter((c) => c.path === '/events').length < N && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(receiver.calls.filter((c) => c.path === '/events')).toHaveLength(N);
    expect(receiver.calls.filter((c) => c.path === '/gate')).toHaveLength(N);

    // Every scrape, on any worker, shows the whole gateway.
    for (let i = 0; i < 6; i++) {
      const scrape = await onNewConnection(`${h.url}/metrics`);
      expect(scrape.status).toBe(200);
      const line = scrape.body
        .split('\n')
        .find((l) => l.startsWith('gateway_requests_total{') && l.includes('model="gpt"') && l.includes('status_class="2xx"'));
      expect(line?.split(' ').pop()).toBe(String(N));
    }

    const stats = JSON.parse((await onNewConnection(`${h.adminUrl}/stats`)).body) as { requests: { total: number; in_flight: number } };
    expect(stats.requests).toMatchObject({ total: N, in_flight: 0 });
    const hooks = JSON.parse((await onNewConnection(`${h.adminUrl}/api/v1/admin/hooks`)).body) as {
      data: { name: string; gate?: { calls: number; allowed: number } }[];
    };
    expect(hooks.data.find((x) => x.name === 'policy')?.gate).toMatchObject({ calls: N, allowed: N });
  });
});
