// SIGHUP in the real process (server/main.ts, two data-plane workers, governance on) while the
// official OpenAI SDK keeps it busy: the file, the catalog and the secrets are read again and
// applied to new requests (weights, a new model, a removed lane, a price), nothing fails, a stream
// in flight finishes; a broken file is refused in one log line and the running configuration
// keeps serving; /metrics counts both.
import OpenAI from 'openai';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.ts';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.ts';
import { splitAfter, steadyLoad, until } from '../support/steady-load.ts';
import { stalledStream } from '../support/stalled-stream.ts';

let upstream: MockUpstream;
let g: GatewayProcess;
let file: string;

const config = `listen: 127.0.0.1:0
admin_listen: 127.0.0.1:0
workers: 2
log_level: info
catalog: ./providers.yaml
db_path: ./gateway.db
governance: on
providers:
  openai: { api_key: { env: RELOAD_TEST_UPSTREAM_KEY } }
models:
  w1: { provider: openai, model: up-one }
  w2: { provider: openai, model: up-two }
  w3: { provider: openai, model: up-three }
  priced: { provider: openai, model: up-priced, price: { input: 1, output: 1 } }
pools:
  split: { members: [ { model: w1 }, { model: w2 }, { model: w3 } ] }
`;

const changed = config
  .replace('  w3: { provider: openai, model: up-three }\n', '  fresh: { provider: openai, model: up-fresh }\n')
  .replace('price: { input: 1, output: 1 }', 'price: { input: 100, output: 100 }')
  .replace('[ { model: w1 }, { model: w2 }, { model: w3 } ]', '[ { model: w1, weight: 3 }, { model: w2, weight: 1 } ]');

beforeAll(async () => {
  upstream = await startMockUpstream();
  g = await startGatewayProcess(config, {
    env: { RELOAD_TEST_UPSTREAM_KEY: 'sk-upstream-reload' },
    files: { 'providers.yaml': `openai: { base_url: ${upstream.url}/v1 }\n` },
  });
  file = g.child.spawnargs[g.child.spawnargs.indexOf('--config') + 1]!;
}, 30_000);
afterAll(async () => {
  if (g.child.exitCode === null) g.child.kill('SIGKILL');
  await upstream.close();
});

const hup = () => {
  const before = g.lines.length;
  g.child.kill('SIGHUP');
  return () => g.lines.slice(before).find((l) => typeof l.msg === 'string' && l.msg.startsWith('SIGHUP'));
};

const share = (split: Record<string, number>, model: string) => (split[model] ?? 0) / Object.values(split).reduce((a, b) => a + b, 0);
const reloads = async (result: string) =>
  Number(new RegExp(`gateway_config_reloads_total\\{result="${result}"\\} (\\d+)`).exec(await (await fetch(`${g.dataUrl}/metrics`)).text())?.[1]);

describe('SIGHUP', () => {
  it('applies a changed file to new requests under load, refuses a broken one, and no request fails', async () => {
    const created = await fetch(`${g.adminUrl}/api/v1/admin/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'load' }),
    });
    const { secret } = (await created.json()) as { secret: string };
    const sdk = new OpenAI({ baseURL: `${g.dataUrl}/v1`, apiKey: secret, maxRetries: 0 });
    const v0 = g.lines.find((l) => l.msg === 'gateway started')?.configVersion;

    // A stream on w3 that has begun and stalls for six seconds, across the change that removes w3.
    const slow = await stalledStream(upstream, sdk, 'w3', 'up-three');

    const load = steadyLoad({ baseURL: `${g.dataUrl}/v1`, apiKey: secret, model: 'split' });
    const priced = steadyLoad({ baseURL: `${g.dataUrl}/v1`, apiKey: secret, model: 'priced', clients: 2 });
    await until('traffic before the change', () => load.results.length >= 30 && priced.results.length >= 6, 30_000);

    writeFileSync(file, changed);
    const applied = hup();
    await until('the SIGHUP log line', () => applied() !== undefined);
    const t1 = Date.now();
    expect(applied()).toMatchObject({ level: 30, signal: 'SIGHUP', trigger: 'sighup', previousVersion: v0 });
    expect(applied()?.msg).toMatch(/^SIGHUP: configuration applied to new requests/);
    const v1 = applied()?.configVersion;
    expect(v1).not.toBe(v0);

    // The stream begun on w3 ends whole, its last pieces after the change had applied.
    await slow.done;
    expect(slow.pieces.map((p) => p.text).join('')).toBe('one two three four five six');
    expect(slow.pieces[slow.pieces.length - 1]!.at).toBeGreaterThan(t1);
    expect((await sdk.chat.completions.create({ model: 'fresh', messages: [{ role: 'user', content: 'new model' }] })).model).toBe('up-fresh');

    await until(
      'traffic after the change',
      () => load.results.filter((r) => r.startedAt > t1).length >= 60 && priced.results.filter((r) => r.startedAt > t1).length >= 6,
      30_000,
    );
    const after = splitAfter(load.results, t1);
    expect(after['up-three']).toBeUndefined();
    expect(share(after, 'up-one')).toBeGreaterThan(0.65);
    expect(share(after, 'up-one')).toBeLessThan(0.85);

    // A file that does not parse: refused in one line, the running configuration keeps serving.
    writeFileSync(file, `${changed}pools: [\n`);
    const refused = hup();
    await until('the refusal', () => refused() !== undefined);
    expect(refused()).toMatchObject({ level: 50, signal: 'SIGHUP', configVersion: v1 });
    expect(refused()?.msg).toMatch(/^SIGHUP: configuration refused, the running one keeps serving: .*config\.yaml:\d+:\d+: /);
    const t2 = Date.now();
    await until('traffic after the refusal', () => load.results.filter((r) => r.startedAt > t2).length >= 20, 30_000);
    expect(splitAfter(load.results, t2)['up-three']).toBeUndefined();

    const all = [...(await load.stop()), ...(await priced.stop())];
    expect(all.filter((r) => r.error !== undefined)).toEqual([]);
    expect(await reloads('applied')).toBe(1);
    expect(await reloads('refused')).toBe(1);
    expect(await (await fetch(`${g.dataUrl}/metrics`)).text()).toContain(`gateway_config_info{config_version="${v1}"} 1`);

    // The request log lines (one per request, from both workers) name the version that served
    // each, and the spend follows that version's price.
    await until('every request line', () => g.lines.filter((l) => l.msg === 'request').length >= all.length + 2);
    const requests = g.lines.filter((l) => l.msg === 'request') as {
      configVersion: string;
      model: string;
      costUsd?: number;
      tokens?: { input: number; output: number };
    }[];
    expect(new Set(requests.map((l) => l.configVersion))).toEqual(new Set([v0, v1]));
    const perToken = (version: unknown) =>
      requests
        .filter((l) => l.model === 'priced' && l.configVersion === version && l.costUsd !== undefined && l.tokens !== undefined)
        .map((l) => l.costUsd! / (l.tokens!.input + l.tokens!.output));
    expect(perToken(v0).length).toBeGreaterThan(0);
    expect(perToken(v1).length).toBeGreaterThan(0);
    for (const cost of perToken(v0)) expect(cost).toBeCloseTo(1e-6, 9);
    for (const cost of perToken(v1)) expect(cost).toBeCloseTo(1e-4, 7);
    expect(readFileSync(join(file, '..', 'providers.yaml'), 'utf8')).toContain(upstream.url);

    g.child.kill('SIGTERM');
    expect(await g.exited()).toEqual({ code: 0, signal: null });
  }, 120_000);
});
