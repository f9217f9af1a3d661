// Changing the configuration of a running gateway (two data-plane workers, governance on) while the
// official OpenAI SDK keeps it busy with streams and whole answers: pool weights, a new model, a
// removed lane and a price change through configControl.applyText and reloadFromFile. No request
// fails, the traffic split follows the new weights, the spend follows the new price, a stream in
// flight on the removed lane finishes, and every record names the version that served it.
import OpenAI from 'openai';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openaiErrorBody } from '../../server/demo/openai-replies.ts';
import { startHarness, type Harness } from '../support/gateway-harness.ts';
import { RecordCollector } from '../support/record-collector.ts';
import { splitAfter, steadyLoad, until } from '../support/steady-load.ts';
import { stalledStream } from '../support/stalled-stream.ts';

const records = new RecordCollector();
let h: Harness;
let file: string;
let startText: string;

beforeAll(async () => {
  h = await startHarness({
    workers: 2,
    observers: [records],
    extraModelsYaml: [
      '  w1: { provider: openai, model: up-one }',
      '  w2: { provider: openai, model: up-two }',
      '  w3: { provider: openai, model: up-three }',
      '  priced: { provider: openai, model: up-priced, price: { input: 1, output: 1 } }',
      '  fragile: { provider: openai, model: up-fragile }',
      '',
    ].join('\n'),
    breakerYaml:
      'breaker: { consecutive_failures: 1, min_requests: 1000, open_ms: 600000, jitter: 0, rate_limit_cooldown_ms: 0, max_rate_limit_cooldown_ms: 0, config_fault_cooldown_ms: 0 }\n',
    extraYaml: 'db_path: ./gateway.db\ngovernance: on\npools:\n  split: { members: [ { model: w1 }, { model: w2 }, { model: w3 } ] }\n',
  });
  file = h.gateway.config.source;
  startText = readFileSync(file, 'utf8');
});
afterAll(() => h.close());

async function createKey(): Promise<string> {
  const res = await fetch(`${h.adminUrl}/api/v1/admin/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'load' }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { secret: string }).secret;
}

/** Weights 3:1 over w1 and w2, w3 gone (from the pool and the models), a new model, the price of `priced` ×100. */
const changed = (text: string) =>
  text
    .replace('  w3: { provider: openai, model: up-three }\n', '  fresh: { provider: openai, model: up-fresh }\n')
    .replace('price: { input: 1, output: 1 }', 'price: { input: 100, output: 100 }')
    .replace('[ { model: w1 }, { model: w2 }, { model: w3 } ]', '[ { model: w1, weight: 3 }, { model: w2, weight: 1 } ]');

const share = (split: Record<string, number>, model: string) => (split[model] ?? 0) / Object.values(split).reduce((a, b) => a + b, 0);

async function metricsText(): Promise<string> {
  return (await fetch(`${h.url}/metrics`)).text();
}

describe('a configuration change under steady load', () => {
  it('applies weights, a new model, a removed lane and a price to new requests; none fails; a stream in flight finishes', async () => {
    const secret = await createKey();
    const sdk = new OpenAI({ baseURL: `${h.url}/v1`, apiKey: secret, maxRetries: 0 });
    const v0 = h.gateway.config.configVersion;
    // What the version history is told: each applied change with its trigger (an unchanged reload is not one).
    const told: string[] = [];
    h.gateway.configControl.onApplied((outcome, trigger) => told.push(`${trigger} ${outcome.previous.configVersion}->${outcome.config.configVersion}`));
    await expect(sdk.chat.completions.create({ model: 'fresh', messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({ status: 404 });

    // A stream on w3 that has begun and stalls for six seconds, across the change that removes w3.
    const slow = await stalledStream(h.upstream, sdk, 'w3', 'up-three');

    const load = steadyLoad({ baseURL: `${h.url}/v1`, apiKey: secret, model: 'split' });
    const priced = steadyLoad({ baseURL: `${h.url}/v1`, apiKey: secret, model: 'priced', clients: 2 });
    await until('traffic before the change', () => load.results.length >= 30);
    expect(share(splitAfter(load.results, 0), 'up-three')).toBeGreaterThan(0.2); // 1:1:1 before

    const applied = await h.gateway.configControl.applyText(changed(startText), 'apply');
    const t1 = Date.now();
    expect(applied).toMatchObject({ applied: true, unchanged: false });
    const v1 = h.gateway.config.configVersion;
    expect(v1).not.toBe(v0);
    expect(applied.applied && applied.previous.configVersion).toBe(v0);
    expect(h.gateway.configControl.currentText()).toBe(changed(startText));
    // The admin plane names the version serving new requests.
    const info = (await (await fetch(`${h.adminUrl}/api/v1/admin/info`)).json()) as { config_version: string; topology: { models: { name: string }[] } };
    expect(info.config_version).toBe(v1);
    expect(info.topology.models.map((m) => m.name)).toContain('fresh');
    expect(((await (await fetch(`${h.adminUrl}/stats`)).json()) as { config_version: string }).config_version).toBe(v1);

    // The stream started on w3 ends whole, on the configuration it started with: its last pieces
    // came after the change had applied.
    await slow.done;
    expect(slow.pieces.map((p) => p.text).join('')).toBe('one two three four five six');
    expect(slow.pieces[slow.pieces.length - 1]!.at).toBeGreaterThan(t1);
    expect((await sdk.chat.completions.create({ model: 'fresh', messages: [{ role: 'user', content: 'new model' }] })).model).toBe('up-fresh');
    await expect(sdk.chat.completions.create({ model: 'w3', messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({ status: 404 });

    await until(
      'traffic after the change',
      () => load.results.filter((r) => r.startedAt > t1).length >= 60 && priced.results.filter((r) => r.startedAt > t1).length >= 10,
      30_000,
    );
    const after = splitAfter(load.results, t1);
    expect(after['up-three']).toBeUndefined();
    expect(share(after, 'up-one')).toBeGreaterThan(0.65); // 3:1 in every worker's rotation
    expect(share(after, 'up-one')).toBeLessThan(0.85);

    // The file is read again: weights the other way round.
    writeFileSync(file, changed(startText).replace('{ model: w1, weight: 3 }, { model: w2, weight: 1 }', '{ model: w1, weight: 1 }, { model: w2, weight: 3 }'));
    const reloaded = await h.gateway.configControl.reloadFromFile('reload');
    const t2 = Date.now();
    expect(reloaded).toMatchObject({ applied: true, unchanged: false });
    const v2 = h.gateway.config.configVersion;
    await until('traffic after the reload', () => load.results.filter((r) => r.startedAt > t2).length >= 60, 30_000);
    expect(share(splitAfter(load.results, t2), 'up-two')).toBeGreaterThan(0.65);
    expect(await h.gateway.configControl.reloadFromFile('reload')).toMatchObject({ applied: true, unchanged: true });
    expect(told).toEqual([`apply ${v0}->${v1}`, `reload ${v1}->${v2}`]);

    const all = [...(await load.stop()), ...(await priced.stop())];
    // Both workers served (and so switched): the clients' connections were spread over them.
    expect((await h.gateway.workerTelemetry()).map((t) => t.requests > 0)).toEqual([true, true]);
    expect(all.filter((r) => r.error !== undefined)).toEqual([]);
    expect(all.length).toBeGreaterThan(150);

    // Every record names the version that served it; spend follows the price of that version.
    await until('every record', () => records.records.length >= all.length + 4);
    const versions = new Set(records.records.map((r) => r.configVersion));
    expect([...versions].sort()).toEqual([v0, v1, v2].sort());
    const slowRecord = records.records.find((r) => r.lane === 'w3' && r.stream);
    expect(slowRecord).toMatchObject({ configVersion: v0, status: 200 });
    const perToken = (version: string) =>
      records.records
        .filter((r) => r.model === 'priced' && r.configVersion === version && r.usage !== null && r.costMicrocents !== undefined)
        .map((r) => Number(r.costMicrocents) / (r.usage!.inputTokens + r.usage!.outputTokens));
    expect(perToken(v0).length).toBeGreaterThan(0);
    expect(perToken(v1).length).toBeGreaterThan(0);
    for (const cost of perToken(v0)) expect(cost).toBeCloseTo(100, 0); // $1 per million tokens: 100 microcents a token
    for (const cost of perToken(v1)) expect(cost).toBeCloseTo(10_000, 0);

    const metrics = await metricsText();
    expect(metrics).toContain(`gateway_config_info{config_version="${v2}"} 1`);
    expect(metrics).toMatch(/gateway_config_reloads_total\{result="applied"\} 2\n/);
    expect(metrics).toMatch(/gateway_config_reloads_total\{result="unchanged"\} 1\n/);
  }, 90_000);

  it('refuses a broken configuration at every door, whole, and the running one keeps serving', async () => {
    const running = h.gateway.config.configVersion;
    const text = h.gateway.configControl.currentText();
    const secret = await createKey();
    const load = steadyLoad({ baseURL: `${h.url}/v1`, apiKey: secret, model: 'split', clients: 2 });
    await until('traffic', () => load.results.length >= 10);
    const broken = {
      syntax: `${text}\nmodels: [oops\n`,
      provider: text.replace('  fresh: { provider: openai, model: up-fresh }', '  fresh: { provider: no-such-provider, model: up-fresh }'),
      secret: text.replace('api_key: { env: TEST_UPSTREAM_OPENAI_KEY }', 'api_key: { env: MISSING_UPSTREAM_KEY }'),
    };
    const problems = {
      syntax: /config\.yaml:\d+:\d+: invalid YAML/,
      provider: /config\.yaml:\d+:\d+: models\.fresh\.provider: unknown provider "no-such-provider"/,
      secret: /config\.yaml:\d+:\d+: providers\.openai\.api_key: .*MISSING_UPSTREAM_KEY/,
    };
    const before = /gateway_config_reloads_total\{result="refused"\} (\d+)/.exec(await metricsText())?.[1];
    for (const [kind, yaml] of Object.entries(broken) as [keyof typeof broken, string][]) {
      expect((await h.gateway.configControl.validateText(yaml)).join('\n')).toMatch(problems[kind]);
      const applied = await h.gateway.configControl.applyText(yaml, 'apply');
      expect(applied.applied).toBe(false);
      expect(!applied.applied && applied.problems.join('\n')).toMatch(problems[kind]);
      writeFileSync(file, yaml);
      const reloaded = await h.gateway.configControl.reloadFromFile('reload');
      expect(!reloaded.applied && reloaded.problems.join('\n')).toMatch(problems[kind]);
      expect(h.gateway.config.configVersion).toBe(running);
    }
    writeFileSync(file, text);
    expect(Number(/gateway_config_reloads_total\{result="refused"\} (\d+)/.exec(await metricsText())?.[1])).toBe(Number(before) + 6);
    const results = await load.stop();
    expect(results.filter((r) => r.error !== undefined)).toEqual([]);
    expect(h.gateway.configControl.currentText()).toBe(text);
  }, 60_000);

  it('refuses a reload when the file cannot be read, saying why, and the running one keeps serving', async () => {
    const running = h.gateway.config.configVersion;
    renameSync(file, `${file}.away`);
    try {
      const reloaded = await h.gateway.configControl.reloadFromFile('reload');
      expect(reloaded).toEqual({ applied: false, problems: [`${file}: cannot read the configuration (ENOENT)`] });
    } finally {
      renameSync(`${file}.away`, file);
    }
    expect(h.gateway.config.configVersion).toBe(running);
    expect(await h.gateway.configControl.reloadFromFile('reload')).toMatchObject({ applied: true, unchanged: true });
  });

  it('a rollback (the previous text applied again) restores the previous version exactly', async () => {
    const before = { version: h.gateway.config.configVersion, text: h.gateway.configControl.currentText() };
    const next = await h.gateway.configControl.applyText(
      before.text.replace('  fragile: {', '  rolled: { provider: openai, model: up-rolled }\n  fragile: {'),
      'apply',
    );
    expect(next).toMatchObject({ applied: true, unchanged: false });
    const back = await h.gateway.configControl.applyText(before.text, 'rollback');
    expect(back).toMatchObject({ applied: true, unchanged: false });
    expect(h.gateway.config.configVersion).toBe(before.version);
    expect(h.gateway.configControl.currentText()).toBe(before.text);
    expect(h.gateway.config.models.has('rolled')).toBe(false);
  });

  it('refuses settings that need a restart, saying so', async () => {
    const text = h.gateway.configControl.currentText();
    const cases: [string, RegExp][] = [
      [text.replace('listen: 127.0.0.1:0\n', 'listen: 127.0.0.1:1\n'), /listen: changed, which needs a restart/],
      [`${text}workers: 3\n`, /workers: changed, which needs a restart/],
      [text.replace('db_path: ./gateway.db', 'db_path: ./other.db'), /db_path: changed, which needs a restart/],
      [text.replace('log_level: silent', 'log_level: debug'), /log_level: changed, which needs a restart/],
    ];
    for (const [yaml, message] of cases) {
      const outcome = await h.gateway.configControl.applyText(yaml, 'apply');
      expect(!outcome.applied && outcome.problems.join('\n')).toMatch(message);
    }
    expect(h.gateway.configControl.currentText()).toBe(text);
  });

  it('keeps an open breaker of an unchanged lane open across a change', async () => {
    const secret = await createKey();
    const sdk = new OpenAI({ baseURL: `${h.url}/v1`, apiKey: secret, maxRetries: 0 });
    h.upstream.reset();
    h.upstream.enqueue({ status: 500, json: openaiErrorBody('upstream broke', 'server_error', null) });
    await expect(sdk.chat.completions.create({ model: 'fragile', messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({ status: 500 });
    const state = () => h.gateway.routing.snapshot().find((p) => p.pool === 'fragile')?.lanes[0]?.state;
    expect(state()).toBe('open');
    const text = h.gateway.configControl.currentText();
    const outcome = await h.gateway.configControl.applyText(
      text.replace('  fragile: {', '  another: { provider: openai, model: up-another }\n  fragile: {'),
      'apply',
    );
    expect(outcome).toMatchObject({ applied: true, unchanged: false });
    expect(state()).toBe('open');
    // Both workers see it open: nothing reaches the upstream.
    for (let i = 0; i < 6; i++)
      await expect(sdk.chat.completions.create({ model: 'fragile', messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({ status: 503 });
    expect(h.upstream.requests).toHaveLength(1);
  });
});
