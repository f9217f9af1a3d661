// Spend survives SIGKILL: a spawned gateway process under load is killed, its SQLite ledger is
// checked (every answered request recorded, key spend equal to the ledger's sum), and a restarted
// gateway reports the same spend.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const ADMIN_TOKEN = 'admin-kill-test';
let upstream: MockUpstream;
let dir: string;

beforeAll(async () => {
  upstream = await startMockUpstream();
  dir = mkdtempSync(join(tmpdir(), 'gateway-kill-'));
  writeFileSync(join(dir, 'providers.yaml'), `openai: { base_url: ${upstream.url}/v1 }\n`);
  writeFileSync(
    join(dir, 'config.yaml'),
    [
      'listen: 127.0.0.1:0',
      'admin_listen: 127.0.0.1:0',
      'catalog: ./providers.yaml',
      'log_level: info',
      'providers: { openai: { api_key: { env: KILL_TEST_KEY } } }',
      'models: { priced: { provider: openai, model: gpt-4.1-mini, price: { input: 2, output: 8 } } }',
      'db_path: ./gateway.db',
      'governance: on',
    ].join('\n') + '\n',
  );
});
afterAll(() => upstream.close());

async function startProcess(): Promise<{ child: ChildProcess; dataUrl: string; adminUrl: string }> {
  const child = spawn(process.execPath, [join(ROOT, 'server/main.ts'), '--config', join(dir, 'config.yaml')], {
    env: { ...process.env, KILL_TEST_KEY: 'upstream', GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const started = await new Promise<{ dataUrl: string; adminUrl: string }>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`gateway exited with ${code}`)));
    lines.on('line', (line) => {
      const parsed = JSON.parse(line) as { msg?: string; dataUrl?: string; adminUrl?: string };
      if (parsed.msg === 'gateway started') resolve({ dataUrl: parsed.dataUrl!, adminUrl: parsed.adminUrl! });
    });
  });
  return { child, ...started };
}

const admin = { 'x-admin-token': ADMIN_TOKEN, 'content-type': 'application/json' };

describe('kill and restart', () => {
  it('keeps every settled request and the key spend through SIGKILL under load', async () => {
    const first = await startProcess();
    const created = (await (
      await fetch(`${first.adminUrl}/api/v1/admin/keys`, { method: 'POST', headers: admin, body: JSON.stringify({ budget_cents: 1_000_000 }) })
    ).json()) as { id: string; secret: string };

    let answered = 0;
    let stop = false;
    const worker = async () => {
      while (!stop) {
        try {
          const res = await fetch(`${first.dataUrl}/v1/chat/completions`, {
            method: 'POST',
            headers: { authorization: `Bearer ${created.secret}` },
            body: JSON.stringify({ model: 'priced', max_completion_tokens: 50, messages: [{ role: 'user', content: 'hello there' }] }),
          });
          if (res.status === 200) {
            await res.json();
            answered++;
          }
        } catch {
          return; // the process is gone
        }
      }
    };
    const load = Array.from({ length: 16 }, worker);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));
    stop = true;
    await Promise.all(load);
    expect(answered).toBeGreaterThan(20);

    const db = new DatabaseSync(join(dir, 'gateway.db'));
    const ledger = db.prepare('SELECT COUNT(*) AS n, SUM(cost_microcents) AS total FROM spend_ledger WHERE key_id = ?').get(created.id) as {
      n: number;
      total: number;
    };
    const key = db.prepare('SELECT spent_microcents AS spent FROM keys WHERE id = ?').get(created.id) as { spent: number };
    db.close();
    expect(ledger.n).toBeGreaterThanOrEqual(answered); // every answer the client saw was settled first
    expect(ledger.n).toBeLessThanOrEqual(answered + 16); // at most the requests in flight at the kill
    expect(key.spent).toBe(ledger.total);

    const second = await startProcess();
    const view = (await (await fetch(`${second.adminUrl}/api/v1/admin/keys/${created.id}`, { headers: admin })).json()) as { spent_cents: number };
    expect(view.spent_cents).toBe(Math.ceil(ledger.total / 1_000_000));
    second.child.kill('SIGTERM');
    const code = await new Promise((resolve) => second.child.once('exit', resolve));
    expect(code).toBe(0);
  }, 30_000);

  it('SIGTERM lets the requests in flight finish, settles them, then exits 0', async () => {
    const gateway = await startProcess();
    const created = (await (
      await fetch(`${gateway.adminUrl}/api/v1/admin/keys`, { method: 'POST', headers: admin, body: JSON.stringify({ budget_cents: 1000 }) })
    ).json()) as { id: string; secret: string };
    const answer =
      '{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"slow"},"finish_reason":"stop","logprobs":null}],"usage":{"prompt_tokens":100,"completion_tokens":100,"total_tokens":200}}';
    upstream.enqueue({ headers: { 'content-type': 'application/json' }, events: [answer.slice(0, 10), answer.slice(10)], delayMs: 600 });
    const inFlight = fetch(`${gateway.dataUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${created.secret}` },
      body: JSON.stringify({ model: 'priced', messages: [{ role: 'user', content: 'take your time' }] }),
    });
    await new Promise((resolve) => setTimeout(resolve, 150));
    gateway.child.kill('SIGTERM');
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(((await res.json()) as { choices: { message: { content: string } }[] }).choices[0]?.message.content).toBe('slow');
    expect(await new Promise((resolve) => gateway.child.once('exit', resolve))).toBe(0);
    const db = new DatabaseSync(join(dir, 'gateway.db'));
    const spent = db.prepare('SELECT spent_microcents AS spent FROM keys WHERE id = ?').get(created.id) as { spent: number };
    db.close();
    expect(spent.spent).toBe(100 * 200 + 100 * 800); // 100 input tokens at 2 USD/M, 100 output at 8 USD/M
  }, 30_000);
});
