// examples/config.yaml and examples/providers.yaml are what operators copy: they must load as they
// are (given the secrets they reference), through the library and through `gateway --validate`.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../server/config/load-config.ts';
import { tempDir } from './config-fixtures.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const EXAMPLE_CONFIG = readFileSync(join(ROOT, 'examples/config.yaml'), 'utf8');
const EXAMPLE_CATALOG = readFileSync(join(ROOT, 'examples/providers.yaml'), 'utf8');
const OPENAI_KEY = 'sk-example-openai';
const ANTHROPIC_KEY = 'sk-ant-example';

/** A copy of the example whose file secret points at a real temp file (the only change). */
function exampleCopy(options: { useCatalog?: boolean } = {}) {
  const dir = tempDir();
  const secret = dir.write('secrets/anthropic', `${ANTHROPIC_KEY}\n`);
  dir.write('providers.yaml', EXAMPLE_CATALOG);
  expect(EXAMPLE_CONFIG).toContain('{ file: /run/secrets/anthropic }');
  let text = EXAMPLE_CONFIG.replace('{ file: /run/secrets/anthropic }', `{ file: ${secret} }`);
  if (options.useCatalog === true) {
    expect(text).toContain('\n# catalog: ./providers.yaml\n');
    text = text.replace('\n# catalog: ./providers.yaml\n', '\ncatalog: ./providers.yaml\n');
  }
  return { dir, file: dir.write('config.yaml', text) };
}

describe('examples/config.yaml', () => {
  it('loads: OpenAI + Anthropic, env and file secrets, a pool, governance off', () => {
    const { file } = exampleCopy();
    const config = loadConfigFile(file, { env: { OPENAI_API_KEY: OPENAI_KEY } });
    expect(config.listen).toEqual({ host: '0.0.0.0', port: 8080 });
    expect(config.adminListen).toEqual({ host: '127.0.0.1', port: 8081 });
    expect(config.providers.get('openai')).toMatchObject({ baseUrl: 'https://api.openai.com/v1', apiKey: OPENAI_KEY });
    expect(config.providers.get('anthropic')).toMatchObject({ baseUrl: 'https://api.anthropic.com', apiKey: ANTHROPIC_KEY });
    expect(config.models.get('gpt')).toMatchObject({ upstreamModel: 'gpt-4.1-mini', provider: { name: 'openai' } });
    expect(config.models.get('claude')).toMatchObject({ upstreamModel: 'claude-sonnet-4-5', defaultMaxTokens: 64000, provider: { name: 'anthropic' } });
    expect(config.pools.get('chat')?.members.map((m) => [m.model.name, m.weight])).toEqual([
      ['gpt', 3],
      ['claude', 1],
    ]);
    expect(config.models.get('embed')).toMatchObject({ upstreamModel: 'text-embedding-3-small', operationPrices: { embeddings: { input: 0.02 } } });
    expect([...config.models.get('embed')!.operations]).toEqual(['embeddings']);
    expect(config.governance).toBe(false);
    expect(config.dbPath).toBeUndefined(); // commented out in the example
  });

  it('names what is missing when the secrets are not there', () => {
    const error = (() => {
      try {
        loadConfigFile(join(ROOT, 'examples/config.yaml'), { env: {} });
      } catch (e) {
        return e as Error;
      }
      return undefined;
    })();
    expect(error?.message).toContain('providers.openai.api_key: environment variable OPENAI_API_KEY is not set');
    expect(error?.message).toContain('providers.anthropic.api_key: cannot read secret file /run/secrets/anthropic');
  });

  it('its commented hooks are valid once uncommented', () => {
    const { dir, file } = exampleCopy();
    const text = readFileSync(file, 'utf8');
    const uncommented = text.replace(/^# (hooks:| {2}[- ] .*)$/gm, '$1');
    expect(uncommented).toContain('\nhooks:\n  - name: audit\n');
    const config = loadConfigFile(dir.write('config.yaml', uncommented), { env: { OPENAI_API_KEY: OPENAI_KEY, AUDIT_WEBHOOK_TOKEN: 'audit-token' } });
    expect(config.hooks.map((h) => [h.name, h.kind, h.target])).toEqual([
      ['audit', 'webhook', 'https://audit.internal.example/gateway-events'],
      ['policy', 'gate', 'http://127.0.0.1:9000/gate'],
    ]);
    expect(config.hooks[0]?.headers).toEqual({ authorization: 'audit-token' });
    expect(config.hooks[1]).toMatchObject({ timeoutMs: 300, onError: 'deny' });
  });

  it('passes `gateway --validate`', async () => {
    const { file } = exampleCopy();
    const { stdout } = await promisify(execFile)(join(ROOT, 'node_modules/.bin/node'), [join(ROOT, 'server/main.ts'), '--validate', file], {
      env: { PATH: process.env.PATH ?? '', OPENAI_API_KEY: OPENAI_KEY },
    });
    expect(stdout).toMatch(/: OK \(3 models, 1 pools, cfg_[0-9a-f]{16}\)\n$/);
  });
});

describe('examples/providers.yaml', () => {
  it('sends OpenAI through the proxy and changes nothing else', () => {
    const plain = loadConfigFile(exampleCopy().file, { env: { OPENAI_API_KEY: OPENAI_KEY } });
    const proxied = loadConfigFile(exampleCopy({ useCatalog: true }).file, { env: { OPENAI_API_KEY: OPENAI_KEY } });
    expect(proxied.providers.get('openai')).toEqual({ ...plain.providers.get('openai'), baseUrl: 'https://llm-proxy.corp.example/openai/v1' });
    expect(proxied.providers.get('anthropic')).toEqual(plain.providers.get('anthropic'));
  });

  it('its commented provider is valid once uncommented', () => {
    const dir = tempDir();
    const uncommented = EXAMPLE_CATALOG.replace(/^# (lmstudio:| {2}protocol:| {2}base_url:| {2}auth:)/gm, '$1');
    expect(uncommented).toContain('\nlmstudio:\n');
    dir.write('providers.yaml', uncommented);
    const file = dir.write('config.yaml', ['catalog: ./providers.yaml', 'models:', '  local: { provider: lmstudio, model: qwen3-8b }']);
    expect(loadConfigFile(file, { env: {} }).providers.get('lmstudio')).toMatchObject({
      protocol: 'openai',
      baseUrl: 'http://localhost:1234/v1',
      auth: 'none',
    });
  });
});

describe('examples/self-serve.yaml', () => {
  const text = readFileSync(join(ROOT, 'examples/self-serve.yaml'), 'utf8');
  const env = { OPENAI_API_KEY: OPENAI_KEY, GATEWAY_GOVERNANCE_SECRET: 'a-governance-secret', OIDC_CLIENT_SECRET: 'an-oidc-secret' };

  function selfServeCopy() {
    const dir = tempDir();
    const secret = dir.write('secrets/anthropic', `${ANTHROPIC_KEY}\n`);
    expect(text).toContain('{ file: /run/secrets/anthropic }');
    return dir.write('self-serve.yaml', text.replace('{ file: /run/secrets/anthropic }', `{ file: ${secret} }`));
  }

  it('loads: governance on, the OIDC issuer with its client secret, three teams with their child_default', () => {
    const config = loadConfigFile(selfServeCopy(), { env });
    expect(config.governance).toBe(true);
    expect(config.auth).toMatchObject({
      publicUrl: 'https://llm.example.com',
      oidc: {
        issuer: 'https://login.example.com/realms/engineering',
        clientId: 'llm-gateway',
        clientSecret: 'an-oidc-secret',
        audiences: ['llm-gateway', 'llm-gateway-cli'],
        teamClaim: 'groups',
        defaultTeam: 'everyone',
        scopes: ['openid', 'email', 'profile', 'groups'],
      },
    });
    expect([...config.teams.values()]).toEqual([
      { name: 'ml-platform', budgetMicrocents: 20_000_000_000n, rpm: 120 },
      { name: 'research', budgetMicrocents: 5_000_000_000n, rpm: 60 },
      { name: 'everyone', budgetMicrocents: 500_000_000n, rpm: 20 },
    ]);
  });

  it('passes `gateway --validate`', async () => {
    const { stdout } = await promisify(execFile)(join(ROOT, 'node_modules/.bin/node'), [join(ROOT, 'server/main.ts'), '--validate', selfServeCopy()], {
      env: { PATH: process.env.PATH ?? '', ...env },
    });
    expect(stdout).toMatch(/: OK \(2 models, 0 pools, cfg_[0-9a-f]{16}\)\n$/);
  });
});
