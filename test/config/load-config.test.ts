import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../server/config/load-config.ts';
import { configError, tempDir } from './config-fixtures.ts';

const OPENAI_SECRET = 'sk-test-openai-0123456789';
const ANTHROPIC_SECRET = 'sk-ant-test-9876543210';

/** A deployment like DESIGN.md's: OpenAI + Anthropic, an env and a file secret, a pool. */
const FULL_CONFIG = [
  'listen: 127.0.0.1:9080',
  'admin_listen: 127.0.0.1:9081',
  'providers:',
  '  openai: { api_key: { env: OPENAI_API_KEY } }',
  '  anthropic: { api_key: { file: ./secrets/anthropic } }',
  'models:',
  '  gpt: { provider: openai, model: gpt-4.1-mini }',
  '  claude: { provider: anthropic, model: claude-sonnet-4-5, max_tokens: 2048 }',
  '  haiku: { provider: anthropic, model: claude-haiku-4-5 }',
  '  cheap: { provider: openai, model: gpt-4.1-nano, price: { input: 0.01, output: 0.02 } }',
  'pools:',
  '  chat: { members: [ { model: gpt, weight: 3 }, { model: claude } ] }',
  'breaker: {}',
  'db_path: ./data/gateway.db',
  'governance: off',
];

function fullDeployment(text: readonly string[] = FULL_CONFIG) {
  const dir = tempDir();
  dir.write('secrets/anthropic', `${ANTHROPIC_SECRET}\n`);
  const file = dir.write('config.yaml', text);
  return { dir, file, env: { OPENAI_API_KEY: OPENAI_SECRET } };
}

describe('the embedded default', () => {
  it('serves the demo upstream under demo, demo-claude, demo-embed and the pool demo-pool, with no keys', () => {
    const config = loadConfigFile(undefined, { env: {} });
    expect(config.source).toBe('(embedded default)');
    expect([...config.models.keys()]).toEqual(['demo', 'demo-claude', 'demo-embed']);
    expect([...config.models.get('demo-embed')!.operations]).toEqual(['embeddings']);
    expect([...config.models.get('demo')!.operations]).toEqual(['chat', 'count_tokens']); // a chat model counts tokens too
    expect(config.models.get('demo')).toMatchObject({ upstreamModel: 'demo-echo', provider: { name: 'demo', protocol: 'openai', auth: 'none' } });
    expect(config.models.get('demo-claude')).toMatchObject({
      upstreamModel: 'demo-echo',
      defaultMaxTokens: 1024,
      provider: { name: 'demo-anthropic', protocol: 'anthropic' },
    });
    expect([...config.pools.keys()]).toEqual(['demo-pool']);
    expect(config.pools.get('demo-pool')?.members.map((m) => [m.model.name, m.weight])).toEqual([
      ['demo', 1],
      ['demo-claude', 1],
    ]);
    expect(config.listen).toEqual({ host: '0.0.0.0', port: 8080 });
    expect(config.adminListen).toEqual({ host: '127.0.0.1', port: 8081 });
    expect(config.governance).toBe(false);
    expect(config.adminToken).toBeUndefined();
  });
});

describe('a full valid configuration', () => {
  it('resolves providers from the catalog with their credentials read', () => {
    const { file, env } = fullDeployment();
    const config = loadConfigFile(file, { env });
    const openai = config.providers.get('openai');
    expect(openai).toMatchObject({ protocol: 'openai', baseUrl: 'https://api.openai.com/v1', auth: 'bearer', apiKey: OPENAI_SECRET });
    expect(openai?.errorMap.insufficient_quota).toBe('billing');
    const anthropic = config.providers.get('anthropic');
    expect(anthropic).toMatchObject({ protocol: 'anthropic', baseUrl: 'https://api.anthropic.com', auth: 'x-api-key' });
    expect(anthropic?.headers).toEqual({ 'anthropic-version': '2023-06-01' });
    expect(anthropic?.errorMap.overloaded_error).toBe('overloaded');
    // The file's trailing newline is not part of the secret.
    expect(anthropic?.apiKey).toBe(ANTHROPIC_SECRET);
    expect([...config.providers.keys()].sort()).toEqual(['anthropic', 'openai']);
  });

  it('resolves models, max_tokens defaults, prices and pools', () => {
    const { file, env } = fullDeployment();
    const config = loadConfigFile(file, { env });
    expect([...config.models.keys()]).toEqual(['gpt', 'claude', 'haiku', 'cheap']);
    const gpt = config.models.get('gpt');
    expect(gpt).toMatchObject({ name: 'gpt', upstreamModel: 'gpt-4.1-mini', provider: { name: 'openai' } });
    expect(gpt?.price).toEqual({ input: 0.4, output: 1.6, cache_read: 0.1 }); // from the catalog
    expect(config.models.get('claude')?.defaultMaxTokens).toBe(2048); // the config's max_tokens
    expect(config.models.get('haiku')?.defaultMaxTokens).toBe(64000); // the catalog's max_output_tokens for claude-haiku-4-5
    expect(config.models.get('cheap')?.price).toEqual({ input: 0.01, output: 0.02 }); // the config's override
    const pool = config.pools.get('chat');
    expect(pool?.members.map((m) => [m.model.name, m.weight, m.model.provider.name])).toEqual([
      ['gpt', 3, 'openai'],
      ['claude', 1, 'anthropic'],
    ]);
  });

  it('resolves addresses, db_path (relative to the config file), governance and defaults', () => {
    const { dir, file, env } = fullDeployment();
    const config = loadConfigFile(file, { env });
    expect(config.source).toBe(file);
    expect(config.listen).toEqual({ host: '127.0.0.1', port: 9080 });
    expect(config.adminListen).toEqual({ host: '127.0.0.1', port: 9081 });
    expect(config.dbPath).toBe(join(dir.path, 'data', 'gateway.db'));
    expect(config.governance).toBe(false);
    expect(config.adminToken).toBeUndefined();
    expect(config.logLevel).toBe('info');
    expect(config.limits).toEqual({
      maxRequestBytes: 32 * 1024 * 1024,
      maxRequestBytesInFlight: 256 * 1024 * 1024,
      connectTimeoutMs: 10_000,
      firstByteTimeoutMs: 120_000,
      idleTimeoutMs: 300_000,
    });
  });

  it('has a config_version that is stable for the same text and changes with it', () => {
    const a = fullDeployment();
    const b = fullDeployment(); // same text, another directory
    const c = fullDeployment([...FULL_CONFIG, '# one comment more']);
    const versionA = loadConfigFile(a.file, { env: a.env }).configVersion;
    expect(versionA).toMatch(/^cfg_[0-9a-f]{16}$/);
    expect(loadConfigFile(a.file, { env: a.env }).configVersion).toBe(versionA);
    expect(loadConfigFile(b.file, { env: b.env }).configVersion).toBe(versionA);
    expect(loadConfigFile(c.file, { env: c.env }).configVersion).not.toBe(versionA);
  });

  it('accepts governance on/true and reads the admin token (GATEWAY_ADMIN_TOKEN wins over admin_token)', () => {
    const dir = tempDir();
    dir.write('admin.token', 'from-file\n');
    const on = dir.write('on.yaml', ['governance: on', 'db_path: ./gateway.db', 'admin_token: { file: ./admin.token }']);
    expect(loadConfigFile(on, { env: {} })).toMatchObject({ governance: true, adminToken: 'from-file' });
    expect(loadConfigFile(on, { env: { GATEWAY_ADMIN_TOKEN: 'from-env' } }).adminToken).toBe('from-env');
    const yes = dir.write('true.yaml', ['governance: true', 'db_path: ./gateway.db']);
    expect(loadConfigFile(yes, { env: {} }).governance).toBe(true);
    const off = dir.write('false.yaml', ['governance: false']);
    expect(loadConfigFile(off, { env: { GATEWAY_ADMIN_TOKEN: 'from-env' } })).toMatchObject({ governance: false, adminToken: 'from-env' });
  });

  it('reads an empty file as a gateway with nothing configured (every key is optional)', () => {
    const config = loadConfigFile(tempDir().write('config.yaml', ''), { env: {} });
    expect(config.models.size).toBe(0);
    expect(config.listen).toEqual({ host: '0.0.0.0', port: 8080 });
  });
});

describe('invalid configurations are refused with file:line:column, the path and what is wrong', () => {
  it('invalid YAML syntax', () => {
    const file = tempDir().write('config.yaml', ['models:', '  gpt: { provider: openai, model: gpt-4.1-mini', 'governance: off']);
    const error = configError(() => loadConfigFile(file, { env: {} }));
    expect(error.problems[0]).toMatchObject({ file, line: 3, column: 1 });
    expect(error.message).toMatch(new RegExp(`^${escapeRegExp(file)}:3:1: invalid YAML: Flow map .*end with a \\}`));
  });

  it('a duplicate key, named with its path', () => {
    const file = tempDir().write('config.yaml', ['governance: off', 'models:', '  gpt: { provider: demo, model: a }', '  gpt: { provider: demo, model: b }']);
    const error = configError(() => loadConfigFile(file, { env: {} }));
    expect(error.problems).toEqual([expect.objectContaining({ path: 'models.gpt', line: 4, column: 3 })]);
    expect(error.message).toBe(`${file}:4:3: models.gpt: duplicate key "gpt": each key may appear only once in a map`);
  });

  it('an alias to a missing anchor is a ConfigError, not a crash', () => {
    const file = tempDir().write('config.yaml', ['models: *nowhere']);
    const error = configError(() => loadConfigFile(file, { env: {} }));
    expect(error.message).toContain(`${file}: invalid YAML: Unresolved alias`);
  });

  it('an unknown top-level key (a typo)', () => {
    const file = tempDir().write('config.yaml', ['listen: 127.0.0.1:8080', 'modles:', '  gpt: { provider: demo, model: demo-echo }']);
    const error = configError(() => loadConfigFile(file, { env: {} }));
    expect(error.problems).toHaveLength(1);
    expect(error.message).toBe(`${file}:2:1: modles: unknown key (check the spelling; see spec/config.schema.json and spec/catalog.schema.json)`);
  });

  it('max_request_bytes_in_flight below max_request_bytes is refused, naming both', () => {
    const file = tempDir().write('config.yaml', ['limits: { max_request_bytes: 2048, max_request_bytes_in_flight: 1024 }']);
    const error = configError(() => loadConfigFile(file, { env: {} }));
    expect(error.problems).toHaveLength(1);
    expect(error.message).toContain('limits.max_request_bytes_in_flight: must be at least max_request_bytes (2048)');
  });

  it('an unknown key inside a model points at the key', () => {
    const file = tempDir().write('config.yaml', ['models:', '  gpt: { provider: demo, model: demo-echo, max_token: 5 }']);
    const error = configError(() => loadConfigFile(file, { env: {} }));
    expect(error.message).toMatch(new RegExp(`^${escapeRegExp(file)}:2:44: models\\.gpt\\.max_token: unknown key`));
  });

  it('a model missing `model`', () => {
    const file = tempDir().write('config.yaml', ['models:', '  demo: { provider: demo }']);
    const error = configError(() => loadConfigFile(file, { env: {} }));
    expect(error.message).toBe(`${file}:2:3: models.demo: missing required key "model"`);
  });

  it('a model naming an unknown provider lists the known ones', () => {
    const file = tempDir().write('config.yaml', ['models:', '  gpt: { provider: opneai, model: gpt-4.1-mini }']);
    const error = configError(() => loadConfigFile(file, { env: {} }));
    expect(error.problems).toHaveLength(1);
    expect(error.message).toMatch(new RegExp(`^${escapeRegExp(file)}:2:20: models\\.gpt\\.provider: unknown provider "opneai" \\(known: .*\\)$`));
    const known = error.message.match(/known: (.*)\)$/)?.[1]?.split(', ');
    expect(known).toEqual(expect.arrayContaining(['openai', 'anthropic', 'demo', 'demo-anthropic', 'gemini']));
  });

  it('a provider the catalog lacks under providers:', () => {
    const file = tempDir().write('config.yaml', ['providers:', '  acme: { api_key: { env: ACME_KEY } }']);
    const error = configError(() => loadConfigFile(file, { env: { ACME_KEY: 'k' } }));
    expect(error.message).toBe(`${file}:2:3: providers.acme: unknown provider "acme": not in the catalog (add it to your providers.yaml)`);
  });

  it('a missing env var secret names the variable and never any secret value', () => {
    const { dir, env } = fullDeployment();
    const file = dir.write(
      'config.yaml',
      FULL_CONFIG.map((line) => line.replace('OPENAI_API_KEY', 'OPENAI_KEY_TYPO')),
    );
    const error = configError(() => loadConfigFile(file, { env }));
    expect(error.problems).toHaveLength(1); // not a second "needs a credential" at each model
    expect(error.message).toBe(`${file}:4:13: providers.openai.api_key: environment variable OPENAI_KEY_TYPO is not set`);
    expect(error.message).not.toContain(OPENAI_SECRET);
    expect(error.message).not.toContain(ANTHROPIC_SECRET);
  });

  it('an empty env var counts as missing', () => {
    const { file } = fullDeployment();
    const error = configError(() => loadConfigFile(file, { env: { OPENAI_API_KEY: '' } }));
    expect(error.message).toBe(`${file}:4:13: providers.openai.api_key: environment variable OPENAI_API_KEY is not set`);
  });

  it('an unreadable secret file', () => {
    const dir = tempDir();
    const file = dir.write('config.yaml', [
      'providers:',
      '  anthropic: { api_key: { file: ./missing.key } }',
      'models:',
      '  claude: { provider: anthropic, model: claude-sonnet-4-5 }',
    ]);
    const error = configError(() => loadConfigFile(file, { env: {} }));
    expect(error.problems).toHaveLength(1);
    expect(error.message).toBe(`${file}:2:16: providers.anthropic.api_key: cannot read secret file ${join(dir.path, 'missing.key')} (ENOENT)`);
  });

  it('an empty secret file', () => {
    const dir = tempDir();
    dir.write('empty.key', '\n');
    const file = dir.write('config.yaml', ['providers:', '  anthropic: { api_key: { file: ./empty.key } }']);
    const error = configError(() => loadConfigFile(file, { env: {} }));
    expect(error.message).toBe(`${file}:2:16: providers.anthropic.api_key: secret file ${join(dir.path, 'empty.key')} is empty`);
  });

  it('a CRLF-terminated secret file is read without its line end', () => {
    const dir = tempDir();
    dir.write('anthropic.key', `${ANTHROPIC_SECRET}\r\n`);
    const file = dir.write('config.yaml', ['providers:', '  anthropic: { api_key: { file: anthropic.key } }']);
    expect(loadConfigFile(file, { env: {} }).providers.get('anthropic')?.apiKey).toBe(ANTHROPIC_SECRET);
  });

  it('a secret with a line break inside (it could never be sent as a header) is refused, without showing it', () => {
    const dir = tempDir();
    dir.write('two-lines.key', `${ANTHROPIC_SECRET}\n\n`);
    const file = dir.write('config.yaml', [
      'providers:',
      '  anthropic: { api_key: { file: ./two-lines.key } }',
      '  openai: { api_key: { env: OPENAI_API_KEY } }',
    ]);
    const error = configError(() => loadConfigFile(file, { env: { OPENAI_API_KEY: `${OPENAI_SECRET}\n` } }));
    expect(error.message.split('\n')).toEqual([
      `${file}:2:16: providers.anthropic.api_key: secret file ${join(dir.path, 'two-lines.key')} contains a line break or control character (only one trailing newline is ignored)`,
      `${file}:3:13: providers.openai.api_key: environment variable OPENAI_API_KEY contains a line break or control character`,
    ]);
    expect(error.message).not.toContain(ANTHROPIC_SECRET);
    expect(error.message).not.toContain(OPENAI_SECRET);
  });

  it('a secret reference with both env and file', () => {
    const file = tempDir().write('config.yaml', ['providers:', '  openai: { api_key: { env: A, file: ./b } }']);
    const error = configError(() => loadConfigFile(file, { env: { A: 'a' } }));
    expect(error.message).toBe(`${file}:2:13: providers.openai.api_key: must NOT have more than 1 properties`);
  });

  it('governance: maybe is one problem that says what is allowed', () => {
    const file = tempDir().write('config.yaml', ['models: {}', 'governance: maybe']);
    const error = configError(() => loadConfigFile(file, { env: {} }));
    expect(error.message).toBe(`${file}:2:13: governance: must be one of: on, off, or boolean`);
  });

  it('a pool naming an unknown model', () => {
    const file = tempDir().write('config.yaml', [
      'models:',
      '  demo: { provider: demo, model: demo-echo }',
      'pools:',
      '  chat:',
      '    members:',
      '      - { model: demo, weight: 2 }',
      '      - { model: gtp, weight: 1 }',
    ]);
    const error = configError(() => loadConfigFile(file, { env: {} }));
    expect(error.message).toBe(`${file}:7:18: pools.chat.members.1.model: unknown model "gtp"`);
  });

  it('a schema error inside a pool member is located at the member', () => {
    const file = tempDir().write('config.yaml', [
      'models:',
      '  demo: { provider: demo, model: demo-echo }',
      'pools:',
      '  chat:',
      '    members:',
      '      - { model: demo, weight: 0 }',
    ]);
    const error = configError(() => loadConfigFile(file, { env: {} }));
    expect(error.message).toBe(`${file}:6:32: pools.chat.members.0.weight: must be >= 1`);
  });

  it('a pool named like a model', () => {
    const file = tempDir().write('config.yaml', [
      'models:',
      '  demo: { provider: demo, model: demo-echo }',
      'pools:',
      '  demo: { members: [ { model: demo } ] }',
    ]);
    const error = configError(() => loadConfigFile(file, { env: {} }));
    expect(error.message).toBe(`${file}:4:3: pools.demo: "demo" is both a model and a pool; clients could not tell which they get`);
  });

  it('a provider that needs a key but has none', () => {
    const file = tempDir().write('config.yaml', ['models:', '  gpt: { provider: openai, model: gpt-4.1-mini }']);
    const error = configError(() => loadConfigFile(file, { env: { OPENAI_API_KEY: 'set but not referenced' } }));
    expect(error.message).toBe(
      `${file}:2:20: models.gpt.provider: provider "openai" needs a credential: set providers.openai.api_key to { env: NAME } or { file: PATH }`,
    );
  });

  it('a model on a provider of any of the six protocols loads (all six codecs are built in)', () => {
    const file = tempDir().write('config.yaml', [
      'providers:',
      '  gemini: { api_key: { env: GEMINI_API_KEY } }',
      'models:',
      '  flash: { provider: gemini, model: gemini-2.5-flash }',
    ]);
    const config = loadConfigFile(file, { env: { GEMINI_API_KEY: 'g' } });
    expect(config.models.get('flash')?.provider).toMatchObject({ protocol: 'gemini', auth: 'x-goog-api-key' });
  });

  it('an admin plane beyond loopback needs both an admin token and TLS', () => {
    const dir = tempDir();
    dir.write('admin.crt', 'CERT');
    dir.write('admin.key', 'KEY');
    const file = dir.write('config.yaml', ['listen: 0.0.0.0:8080', 'admin_listen: 0.0.0.0:8081']);
    const error = configError(() => loadConfigFile(file, { env: {} }));
    expect(error.message).toBe(
      [
        `${file}:2:15: admin_listen: the admin plane would listen on 0.0.0.0, beyond loopback, with no admin token: set GATEWAY_ADMIN_TOKEN or admin_token`,
        `${file}:2:15: admin_listen: the admin plane would listen on 0.0.0.0, beyond loopback, without TLS: set admin_tls (cert, key, and client_ca for mTLS)`,
      ].join('\n'),
    );
    expect(configError(() => loadConfigFile(file, { env: { GATEWAY_ADMIN_TOKEN: 'admin-secret' } })).problems).toHaveLength(1);
    const withTls = dir.write('tls.yaml', ['listen: 0.0.0.0:8080', 'admin_listen: 0.0.0.0:8081', 'admin_tls: { cert: ./admin.crt, key: ./admin.key }']);
    const config = loadConfigFile(withTls, { env: { GATEWAY_ADMIN_TOKEN: 'admin-secret' } });
    expect(config.adminTls).toEqual({ cert: 'CERT', key: 'KEY', clientCa: undefined });
    expect(config.adminListen).toEqual({ host: '0.0.0.0', port: 8081 });
    expect(config.adminToken).toBe('admin-secret');
    const ipv6Loopback = tempDir().write('config.yaml', ['admin_listen: "[::1]:8081"']);
    expect(loadConfigFile(ipv6Loopback, { env: {} }).adminListen).toEqual({ host: '::1', port: 8081 });
  });

  it('an unreadable admin_token is reported once, at admin_token', () => {
    const dir = tempDir();
    dir.write('admin.crt', 'CERT');
    dir.write('admin.key', 'KEY');
    const file = dir.write('config.yaml', [
      'admin_listen: 0.0.0.0:8081',
      'admin_token: { env: ADMIN_TOKEN }',
      'admin_tls: { cert: ./admin.crt, key: ./admin.key }',
    ]);
    const error = configError(() => loadConfigFile(file, { env: {} }));
    expect(error.message).toBe(`${file}:2:1: admin_token: environment variable ADMIN_TOKEN is not set`);
  });

  it('an unreadable config file', () => {
    const file = join(tempDir().path, 'nope.yaml');
    const error = configError(() => loadConfigFile(file, { env: {} }));
    expect(error.message).toBe(`${file}: cannot read the configuration (ENOENT)`);
  });

  it('reports several schema problems in one file at once', () => {
    const file = tempDir().write('config.yaml', [
      'listen: localhost',
      'modles: {}',
      'models:',
      '  gpt: { provider: openai }',
      'governance: maybe',
      'log_level: loud',
    ]);
    const error = configError(() => loadConfigFile(file, { env: {} }));
    expect(error.message.split('\n').sort()).toEqual(
      [
        `${file}:1:9: listen: must match pattern "^(\\[[0-9a-fA-F:.]+\\]|[A-Za-z0-9.-]*):[0-9]{1,5}$"`,
        `${file}:2:1: modles: unknown key (check the spelling; see spec/config.schema.json and spec/catalog.schema.json)`,
        `${file}:4:3: models.gpt: missing required key "model"`,
        `${file}:5:13: governance: must be one of: on, off, or boolean`,
        `${file}:6:12: log_level: must be one of: trace, debug, info, warn, error, silent`,
      ].sort(),
    );
  });

  it('reports several resolution problems in one file at once', () => {
    const file = tempDir().write('config.yaml', [
      'providers:',
      '  openai: { api_key: { env: NOT_SET } }',
      '  acme: { api_key: { env: NOT_SET_EITHER } }',
      'models:',
      '  gpt: { provider: openai, model: gpt-4.1-mini }',
      '  claude: { provider: anthropic, model: claude-sonnet-4-5 }',
      '  x: { provider: nowhere, model: y }',
      'pools:',
      '  chat: { members: [ { model: gpt }, { model: missing } ] }',
    ]);
    const error = configError(() => loadConfigFile(file, { env: {} }));
    expect(error.problems.map((p) => `${p.line}:${p.column} ${p.path}`)).toEqual([
      '2:13 providers.openai.api_key',
      '3:3 providers.acme',
      '6:23 models.claude.provider',
      '7:18 models.x.provider',
      '9:47 pools.chat.members.1.model',
    ]);
  });
});

describe('the operator catalog (catalog: ./providers.yaml)', () => {
  const usingCatalog = (catalogLines: readonly string[], models: readonly string[] = ['  gpt: { provider: openai, model: gpt-4.1-mini }']) => {
    const dir = tempDir();
    const catalog = dir.write('providers.yaml', catalogLines);
    const file = dir.write('config.yaml', ['catalog: ./providers.yaml', 'providers:', '  openai: { api_key: { env: OPENAI_API_KEY } }', 'models:', ...models]);
    return { dir, catalog, file, env: { OPENAI_API_KEY: OPENAI_SECRET } };
  };

  it('a partial entry changes only the base URL', () => {
    const { file, env } = usingCatalog(['openai: { base_url: https://proxy.internal/v1 }']);
    const shipped = loadConfigFile(fullDeployment().file, { env: { OPENAI_API_KEY: OPENAI_SECRET } }).providers.get('openai');
    const openai = loadConfigFile(file, { env }).providers.get('openai');
    expect(openai?.baseUrl).toBe('https://proxy.internal/v1');
    expect(openai).toEqual({ ...shipped, baseUrl: 'https://proxy.internal/v1' });
    expect(openai?.auth).toBe('bearer');
    expect(openai?.errorMap.insufficient_quota).toBe('billing');
  });

  it('merges maps key by key: an added header keeps the shipped ones', () => {
    const dir = tempDir();
    dir.write('providers.yaml', ['anthropic:', '  headers: { x-proxy-route: blue }', '  error_map: { proxy_error: server }']);
    const file = dir.write('config.yaml', [
      'catalog: ./providers.yaml',
      'providers:',
      '  anthropic: { api_key: { env: ANTHROPIC_API_KEY }, headers: { x-team: red } }',
      'models:',
      '  claude: { provider: anthropic, model: claude-sonnet-4-5 }',
    ]);
    const anthropic = loadConfigFile(file, { env: { ANTHROPIC_API_KEY: ANTHROPIC_SECRET } }).providers.get('anthropic');
    expect(anthropic?.baseUrl).toBe('https://api.anthropic.com');
    expect(anthropic?.headers).toEqual({ 'anthropic-version': '2023-06-01', 'x-proxy-route': 'blue', 'x-team': 'red' });
    expect(anthropic?.errorMap).toMatchObject({ proxy_error: 'server', overloaded_error: 'overloaded' });
  });

  it('adds a new provider', () => {
    const { file, env } = usingCatalog(
      ['lmstudio:', '  protocol: openai', '  base_url: http://localhost:1234/v1/', '  auth: none'],
      ['  local: { provider: lmstudio, model: qwen3-8b }'],
    );
    const config = loadConfigFile(file, { env });
    expect(config.providers.get('lmstudio')).toMatchObject({ protocol: 'openai', baseUrl: 'http://localhost:1234/v1', auth: 'none', apiKey: undefined });
    expect(config.models.get('local')).toMatchObject({ upstreamModel: 'qwen3-8b', defaultMaxTokens: 4096, price: undefined });
  });

  it('a typo in the operator catalog names the operator file and line', () => {
    const { catalog, file, env } = usingCatalog(['# corporate proxy', 'openai:', '  base_ur: https://proxy.internal/v1']);
    const error = configError(() => loadConfigFile(file, { env }));
    expect(error.problems).toHaveLength(1);
    expect(error.message).toBe(`${catalog}:3:3: openai.base_ur: unknown key (check the spelling; see spec/config.schema.json and spec/catalog.schema.json)`);
  });

  it('a new provider missing required fields is reported in the operator file', () => {
    const { catalog, file, env } = usingCatalog(['openai: { base_url: https://proxy.internal/v1 }', 'acme:', '  protocol: openai']);
    const error = configError(() => loadConfigFile(file, { env }));
    expect(error.message.split('\n')).toEqual([`${catalog}:2:1: acme: missing required key "base_url"`, `${catalog}:2:1: acme: missing required key "auth"`]);
  });

  it('an unreadable catalog file is a clear error', () => {
    const dir = tempDir();
    const file = dir.write('config.yaml', ['catalog: ./nowhere/providers.yaml', 'models: {}']);
    const error = configError(() => loadConfigFile(file, { env: {} }));
    expect(error.message).toBe(`${join(dir.path, 'nowhere', 'providers.yaml')}: cannot read the catalog (ENOENT)`);
  });

  it('invalid YAML in the operator catalog names the operator file and line', () => {
    const { catalog, file, env } = usingCatalog(['openai:', '  base_url: https://a/v1', '  base_url: https://b/v1']);
    const error = configError(() => loadConfigFile(file, { env }));
    expect(error.message).toBe(`${catalog}:3:3: openai.base_url: duplicate key "base_url": each key may appear only once in a map`);
  });

  it('a catalog that is not a map', () => {
    const { catalog, file, env } = usingCatalog(['- openai']);
    const error = configError(() => loadConfigFile(file, { env }));
    expect(error.message).toBe(`${catalog}: a catalog is a map of provider names`);
  });

  it('a change to the operator catalog changes config_version', () => {
    const a = usingCatalog(['openai: { base_url: https://proxy-a.internal/v1 }']);
    const b = usingCatalog(['openai: { base_url: https://proxy-b.internal/v1 }']);
    expect(loadConfigFile(a.file, { env: a.env }).configVersion).not.toBe(loadConfigFile(b.file, { env: b.env }).configVersion);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
