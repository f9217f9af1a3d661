// The configuration operations of the admin API over real HTTP, against a gateway started from a
// config file in a temporary directory; the data plane is checked with the official openai SDK.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.ts';
import { baseConfigYaml, CONFIG_UPSTREAM_KEY, startConfigGateway, type ConfigGateway } from '../support/config-file-gateway.ts';

const PROBLEM = /^.+config\.yaml:\d+:\d+: (\S+: )?.+$/;
const WITH_NEW_MODEL = baseConfigYaml('  gpt-new: { provider: openai, model: gpt-4.1-nano }   # added live\n');
/** Three ways a configuration is broken, each with what its problem must say. */
const BROKEN: readonly (readonly [string, string, RegExp])[] = [
  ['a YAML syntax error', `${baseConfigYaml()}  broken: { provider: openai, model: [unclosed\n`, /invalid YAML/],
  [
    'an unknown provider',
    baseConfigYaml('  nowhere: { provider: no-such-provider, model: m }\n'),
    /models\.nowhere\.provider: unknown provider "no-such-provider"/,
  ],
  [
    'a secret reference that cannot be read',
    baseConfigYaml().replace('{ env: CONFIG_UPSTREAM_KEY }', '{ env: CONFIG_NO_SUCH_VARIABLE }'),
    /providers\.openai\.api_key: environment variable CONFIG_NO_SUCH_VARIABLE is not set/,
  ],
];

async function chat(gateway: ConfigGateway, model: string): Promise<string> {
  const client = new OpenAI({ baseURL: `${gateway.gateway.dataUrl}/v1`, apiKey: 'unused', maxRetries: 0 });
  const answer = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hello' }] });
  return answer.model;
}

describe('config admin API: validate, apply, reload, versions, diff, rollback', () => {
  let upstream: MockUpstream;
  let gw: ConfigGateway;
  let startText: string;
  let startVersion: string;
  beforeAll(async () => {
    upstream = await startMockUpstream();
    gw = await startConfigGateway({ upstream });
    startText = readFileSync(gw.file, 'utf8');
    startVersion = gw.gateway.configControl.current().configVersion;
  });
  afterAll(async () => {
    await gw.close();
    await upstream.close();
  });

  it('GET config: the running text (references as written), its version, the file and that it can be written', async () => {
    const { status, json } = await gw.admin('GET', '/api/v1/admin/config');
    expect(status).toBe(200);
    expect(json).toMatchObject({ version: 1, config_version: startVersion, source: gw.file, writable: true });
    expect(json.yaml).toBe(startText); // nothing in it is a secret: byte for byte
    const versions = await gw.admin('GET', '/api/v1/admin/config/versions');
    expect(versions.json).toMatchObject({ stored: false, kept: 100, data: [{ version: 1, trigger: 'start', current: true, config_version: startVersion }] });
  });

  it.each(BROKEN)('validate: %s comes back as problems, nothing applied', async (_name, text, says) => {
    const { status, json } = await gw.admin('POST', '/api/v1/admin/config/validate', text);
    expect(status).toBe(200);
    expect(json.valid).toBe(false);
    expect(json.problems.length).toBeGreaterThan(0);
    for (const problem of json.problems) expect(problem).toMatch(PROBLEM);
    expect(json.problems.join('\n')).toMatch(says);
    expect(gw.gateway.configControl.current().configVersion).toBe(startVersion);
    expect(readFileSync(gw.file, 'utf8')).toBe(startText);
  });

  it('validate: a good configuration is valid, and still not applied', async () => {
    const { status, json } = await gw.admin('POST', '/api/v1/admin/config/validate', WITH_NEW_MODEL, 'text/plain');
    expect(status).toBe(200);
    expect(json).toEqual({ valid: true, problems: [] });
    await expect(chat(gw, 'gpt-new')).rejects.toMatchObject({ status: 404 });
  });

  it.each(BROKEN)('apply: %s is refused (422, every problem listed), the file untouched and the old configuration serving', async (_name, text, says) => {
    const { status, json } = await gw.admin('POST', '/api/v1/admin/config/apply', text);
    expect(status).toBe(422);
    expect(json.error.code).toBe('config_invalid');
    expect(json.error.problems.join('\n')).toMatch(says);
    for (const problem of json.error.problems) expect(problem).toMatch(PROBLEM);
    expect(readFileSync(gw.file, 'utf8')).toBe(startText);
    expect(await chat(gw, 'gpt')).toBe('gpt-4.1-mini');
  });

  it.each(BROKEN)('reload: %s in the file is refused, the old configuration serving', async (_name, text, says) => {
    writeFileSync(gw.file, text);
    try {
      const { status, json } = await gw.admin('POST', '/api/v1/admin/config/reload');
      expect(status).toBe(422);
      expect(json.error).toMatchObject({ code: 'config_invalid' });
      expect(json.error.problems.join('\n')).toMatch(says);
      expect(gw.gateway.configControl.current().configVersion).toBe(startVersion);
      expect(await chat(gw, 'gpt')).toBe('gpt-4.1-mini');
    } finally {
      writeFileSync(gw.file, startText);
    }
  });

  it('reload of an unchanged file: applied, unchanged, no new version', async () => {
    const { status, json } = await gw.admin('POST', '/api/v1/admin/config/reload');
    expect(status).toBe(200);
    expect(json).toMatchObject({ unchanged: true, config_version: startVersion, version: { version: 1, trigger: 'start' } });
  });

  it('apply: written by a rename (new inode, no temporary file left), applied, and the new model serves', async () => {
    const before = statSync(gw.file);
    const { status, json } = await gw.admin('POST', '/api/v1/admin/config/apply', WITH_NEW_MODEL);
    expect(status).toBe(200);
    expect(json).toMatchObject({ unchanged: false, previous_config_version: startVersion, version: { version: 2, trigger: 'apply', current: true } });
    expect(json.config_version).not.toBe(startVersion);
    expect(readFileSync(gw.file, 'utf8')).toBe(WITH_NEW_MODEL);
    const after = statSync(gw.file);
    expect(after.ino).not.toBe(before.ino);
    expect(after.mode).toBe(before.mode);
    expect(readdirSync(gw.dir).sort()).toEqual(['config.yaml', 'providers.yaml']);
    expect(await chat(gw, 'gpt-new')).toBe('gpt-4.1-nano');
    expect(upstream.requests.at(-1)?.json).toMatchObject({ model: 'gpt-4.1-nano' });
    expect(await chat(gw, 'gpt')).toBe('gpt-4.1-mini');
  });

  it('versions, one version and the diff between them (masked texts, unified diff)', async () => {
    const list = await gw.admin('GET', '/api/v1/admin/config/versions');
    expect(list.json.data.map((v: { version: number; trigger: string; current: boolean }) => [v.version, v.trigger, v.current])).toEqual([
      [2, 'apply', true],
      [1, 'start', false],
    ]);
    const one = await gw.admin('GET', '/api/v1/admin/config/versions/1');
    expect(one.json).toMatchObject({ version: 1, trigger: 'start', yaml: startText });
    const diff = await gw.admin('GET', '/api/v1/admin/config/diff?from=1&to=2');
    expect(diff.status).toBe(200);
    expect(diff.json.diff).toContain('--- v1\t');
    expect(diff.json.diff).toContain('+++ v2\t');
    expect(diff.json.diff).toContain('+  gpt-new: { provider: openai, model: gpt-4.1-nano }   # added live\n');
    // Without parameters: the running version against the one before it.
    expect((await gw.admin('GET', '/api/v1/admin/config/diff')).json.diff).toBe(diff.json.diff);
    expect((await gw.admin('GET', '/api/v1/admin/config/diff?from=2&to=2')).json.diff).toBe('');
    expect((await gw.admin('GET', '/api/v1/admin/config/versions/99')).status).toBe(404);
    expect((await gw.admin('GET', '/api/v1/admin/config/diff?from=99')).json.error).toMatchObject({
      code: 'not_found',
      message: 'no configuration version 99 (kept: 1 to 2)',
    });
    expect((await gw.admin('GET', '/api/v1/admin/config/diff?from=x')).status).toBe(400);
  });

  it("rollback: the previous version's exact text and config_version, as a new version; the removed model stops serving", async () => {
    const v1 = (await gw.admin('GET', '/api/v1/admin/config/versions')).json.data[1];
    const { status, json } = await gw.admin('POST', '/api/v1/admin/config/rollback');
    expect(status).toBe(200);
    expect(json).toMatchObject({
      unchanged: false,
      config_version: v1.config_version,
      version: { version: 3, trigger: 'rollback', current: true, config_version: v1.config_version },
    });
    expect(readFileSync(gw.file, 'utf8')).toBe(startText);
    expect(gw.gateway.configControl.currentText()).toBe(startText);
    expect(gw.gateway.configControl.current().configVersion).toBe(startVersion);
    await expect(chat(gw, 'gpt-new')).rejects.toMatchObject({ status: 404 });
    // To a given version: forward again to v2's text.
    const forward = await gw.admin('POST', '/api/v1/admin/config/rollback', { version: 2 });
    expect(forward.json).toMatchObject({ version: { version: 4, trigger: 'rollback' } });
    expect(readFileSync(gw.file, 'utf8')).toBe(WITH_NEW_MODEL);
    expect(await chat(gw, 'gpt-new')).toBe('gpt-4.1-nano');
    expect((await gw.admin('POST', '/api/v1/admin/config/rollback', { version: 42 })).status).toBe(404);
    expect((await gw.admin('POST', '/api/v1/admin/config/rollback', { version: 'two' })).status).toBe(400);
  });

  it('refuses a YAML body sent as JSON (415) and a body past the limit (413)', async () => {
    const json = await gw.admin('POST', '/api/v1/admin/config/apply', WITH_NEW_MODEL, 'application/json');
    expect(json.status).toBe(415);
    expect(json.json.error.code).toBe('unsupported_media_type');
    const big = await gw.admin('POST', '/api/v1/admin/config/validate', `# ${'x'.repeat(5 * 1024 * 1024)}\n`);
    expect(big.status).toBe(413);
  });

  it('needs the admin token', async () => {
    const response = await fetch(`${gw.gateway.adminUrl}/api/v1/admin/config`);
    expect(response.status).toBe(401);
  });

  it('the upstream key never shows', async () => {
    for (const path of ['/api/v1/admin/config', '/api/v1/admin/config/versions/1', '/api/v1/admin/config/diff?from=1&to=2']) {
      expect(JSON.stringify((await gw.admin('GET', path)).json)).not.toContain(CONFIG_UPSTREAM_KEY);
    }
  });
});

describe('config admin API with two data-plane workers', () => {
  let upstream: MockUpstream;
  let gw: ConfigGateway;
  beforeAll(async () => {
    upstream = await startMockUpstream();
    gw = await startConfigGateway({ upstream, workers: 2 });
  });
  afterAll(async () => {
    await gw.close();
    await upstream.close();
  });

  it('once apply has answered, every worker serves the new model; after a rollback none does', async () => {
    expect((await gw.admin('POST', '/api/v1/admin/config/apply', WITH_NEW_MODEL)).status).toBe(200);
    // Concurrent requests open several connections, which the kernel spreads over both workers;
    // batches go on (a few at most) until each worker has served some.
    let served: number[] = [];
    for (let batch = 0; batch < 10 && !(served.length === 2 && served.every((n) => n > 0)); batch++) {
      expect(await Promise.all(Array.from({ length: 12 }, () => chat(gw, 'gpt-new')))).toEqual(Array(12).fill('gpt-4.1-nano'));
      served = (await gw.gateway.workerTelemetry()).map((w) => w.requests);
    }
    expect(served.length === 2 && served.every((n) => n > 0), `requests per worker: ${served.join(', ')}`).toBe(true);
    expect((await gw.admin('POST', '/api/v1/admin/config/rollback')).status).toBe(200);
    const after = await Promise.allSettled(Array.from({ length: 12 }, () => chat(gw, 'gpt-new')));
    expect(after.map((r) => (r.status === 'rejected' ? (r.reason as { status?: number }).status : 'served'))).toEqual(Array(12).fill(404));
  });
});
