// One gateway writes a db_path, anyone may read it: while a gateway serves, `sqlite3 -readonly`
// reads its keys and spend; a second gateway on the same file is refused at start with one clear
// sentence; once the first is SIGKILLed (its companion lock dropped by the OS), a new one starts
// on the file with the spend intact.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGatewayToExit } from '../support/gateway-exit.ts';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.ts';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.ts';

const ADMIN_TOKEN = 'admin-single-writer';
const admin = { 'x-admin-token': ADMIN_TOKEN, 'content-type': 'application/json' };
let upstream: MockUpstream;
let dbPath: string;
let catalog: string;
const running: GatewayProcess[] = [];

beforeAll(async () => {
  upstream = await startMockUpstream();
  const dir = mkdtempSync(join(tmpdir(), 'gateway-single-writer-'));
  dbPath = join(dir, 'gateway.db');
  catalog = join(dir, 'providers.yaml');
  writeFileSync(catalog, `openai: { base_url: ${upstream.url}/v1 }\n`);
});
afterAll(async () => {
  for (const gateway of running) if (gateway.child.exitCode === null) gateway.child.kill('SIGKILL');
  await upstream.close();
});

function config(): string {
  return (
    [
      'listen: 127.0.0.1:0',
      'admin_listen: 127.0.0.1:0',
      `catalog: ${catalog}`,
      'log_level: info',
      'providers: { openai: { api_key: { env: SINGLE_WRITER_KEY } } }',
      'models: { priced: { provider: openai, model: gpt-4.1-mini, price: { input: 2, output: 8 } } }',
      `db_path: ${dbPath}`,
      'governance: on',
    ].join('\n') + '\n'
  );
}
const env = { SINGLE_WRITER_KEY: 'upstream', GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN };

async function start(): Promise<GatewayProcess> {
  const gateway = await startGatewayProcess(config(), { env });
  running.push(gateway);
  return gateway;
}

function sqlite3ReadOnly(sql: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('sqlite3', ['-readonly', '-json', dbPath, sql], (error, stdout, stderr) =>
      error ? reject(new Error(`sqlite3: ${stderr || error.message}`)) : resolve(stdout),
    );
  });
}

describe('the embedded store: one writer, many readers', () => {
  it('is read by sqlite3 -readonly while serving, refuses a second gateway, and reopens after SIGKILL', async () => {
    const first = await start();
    const created = (await (
      await fetch(`${first.adminUrl}/api/v1/admin/keys`, { method: 'POST', headers: admin, body: JSON.stringify({ budget_cents: 1000 }) })
    ).json()) as { id: string; secret: string };
    const client = new OpenAI({ apiKey: created.secret, baseURL: `${first.dataUrl}/v1`, maxRetries: 0 });
    for (let i = 0; i < 3; i++) {
      await client.chat.completions.create({ model: 'priced', messages: [{ role: 'user', content: `hello ${i}` }] });
    }

    // A reader in another process, while the gateway holds the file and keeps serving.
    const rows = JSON.parse(
      await sqlite3ReadOnly(`SELECT k.id, k.spent_microcents AS spent, (SELECT count(*) FROM spend_ledger s WHERE s.key_id = k.id) AS settled FROM keys k`),
    ) as { id: string; spent: number; settled: number }[];
    expect(rows).toEqual([{ id: created.id, spent: expect.any(Number), settled: 3 }]);
    expect(rows[0]!.spent).toBeGreaterThan(0);
    await client.chat.completions.create({ model: 'priced', messages: [{ role: 'user', content: 'hello 3' }] }); // priced as the first three

    // A second gateway on the same db_path: refused before it listens, in one sentence.
    const second = await runGatewayToExit(config(), { env });
    expect(second.code).toBe(1);
    expect(second.stderr.trim()).toBe(`gateway: ${dbPath} is locked by another process (is another gateway running with the same db_path?)`);

    // SIGKILL: no clean close, yet the OS drops the lock and a new gateway starts on the file.
    first.child.kill('SIGKILL');
    await first.exited();
    const third = await start();
    const view = (await (await fetch(`${third.adminUrl}/api/v1/admin/keys/${created.id}`, { headers: admin })).json()) as { spent_cents: number };
    expect(view.spent_cents).toBe(Math.ceil((rows[0]!.spent * 4) / 3 / 1_000_000)); // four equal requests settled
    third.child.kill('SIGTERM');
    expect((await third.exited()).code).toBe(0);
  }, 30_000);
});
