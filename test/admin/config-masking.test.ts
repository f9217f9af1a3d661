// GET /api/v1/admin/config, its versions and their diff never show a secret: every value put in
// (through references, or written plainly where a header allows it) is searched for in the answers.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.ts';
import {
  baseConfigYaml,
  CONFIG_ADMIN_TOKEN,
  CONFIG_UPSTREAM_KEY,
  startConfigGateway,
  writeConfigDir,
  type ConfigGateway,
} from '../support/config-file-gateway.ts';
import { makeTlsFixtures } from '../support/tls-fixtures.ts';

const GOVERNANCE_SECRET = 'governance-secret-from-file-5e21';
const HOOK_URL = 'https://hooks.example.test/services/T0/B0/hook-url-secret-path';
const HOOK_TOKEN = 'Bearer hook-bearer-secret-9c04';
const PLAIN_PROVIDER_HEADER = 'plain-provider-header-secret-1b';
const PLAIN_HOOK_HEADER = 'plain-hook-header-secret-77';
const URL_PASSWORD = 'url-password-secret-3d';
const URL_QUERY = 'url-query-secret-a8';
const OTLP_TOKEN = 'otlp-token-secret-66f0';
const PLAIN_OTLP_HEADER = 'plain-otlp-header-secret-20';

describe('the configuration as the admin API shows it', () => {
  let upstream: MockUpstream;
  let gw: ConfigGateway;
  let tlsKey: string;
  let secrets: string[];
  beforeAll(async () => {
    upstream = await startMockUpstream();
    const tls = makeTlsFixtures();
    tlsKey = readFileSync(tls.files.serverKey, 'utf8');
    const dir = mkdtempSync(join(tmpdir(), 'gateway-config-masking-'));
    writeFileSync(join(dir, 'governance.secret'), `${GOVERNANCE_SECRET}\n`);
    writeConfigDir(
      dir,
      upstream,
      baseConfigYaml(`db_path: ./gateway.db
governance_secret: { file: ./governance.secret }
tls: { cert: ${tls.files.serverCert}, key: { env: CONFIG_TLS_KEY } }
hooks:
  - { name: audit, kind: webhook, url: { env: CONFIG_HOOK_URL }, headers: { authorization: { env: CONFIG_HOOK_TOKEN }, x-hook-key: ${PLAIN_HOOK_HEADER}, x-team: platform } }
  - { name: plain, kind: webhook, url: "https://ops:${URL_PASSWORD}@hooks.example.test/in?sig=${URL_QUERY}&team=x" }
otlp:
  endpoint: http://127.0.0.1:9/otlp
  headers: { authorization: { env: CONFIG_OTLP_TOKEN }, x-otlp-key: ${PLAIN_OTLP_HEADER} }
`).replace(
        'openai: { api_key: { env: CONFIG_UPSTREAM_KEY } }',
        `openai: { api_key: { env: CONFIG_UPSTREAM_KEY }, headers: { x-org-token: ${PLAIN_PROVIDER_HEADER}, OpenAI-Organization: org-visible } }`,
      ),
    );
    gw = await startConfigGateway({
      upstream,
      dir,
      env: { CONFIG_HOOK_URL: HOOK_URL, CONFIG_HOOK_TOKEN: HOOK_TOKEN, CONFIG_OTLP_TOKEN: OTLP_TOKEN, CONFIG_TLS_KEY: tlsKey },
    });
    secrets = [
      CONFIG_UPSTREAM_KEY,
      CONFIG_ADMIN_TOKEN,
      GOVERNANCE_SECRET,
      HOOK_URL,
      'hook-url-secret-path',
      HOOK_TOKEN,
      'hook-bearer-secret-9c04',
      PLAIN_PROVIDER_HEADER,
      PLAIN_HOOK_HEADER,
      URL_PASSWORD,
      URL_QUERY,
      OTLP_TOKEN,
      PLAIN_OTLP_HEADER,
      tlsKey.split('\n')[1]!,
    ];
    // An operator's slip: the upstream key pasted into a comment; the next version has it.
    const slipped = `${readFileSync(gw.file, 'utf8')}# rotated from ${CONFIG_UPSTREAM_KEY} on Monday\n`;
    const applied = await gw.admin('POST', '/api/v1/admin/config/apply', slipped);
    expect(applied.status).toBe(200);
  });
  afterAll(async () => {
    await gw.close();
    await upstream.close();
  });

  it('masks every secret in GET config, each version, the list and the diff', async () => {
    const answers = await Promise.all(
      [
        '/api/v1/admin/config',
        '/api/v1/admin/config/versions',
        '/api/v1/admin/config/versions/1',
        '/api/v1/admin/config/versions/2',
        '/api/v1/admin/config/diff?from=1&to=2',
      ].map(async (path) => [path, JSON.stringify(await gw.admin('GET', path))] as const),
    );
    for (const [path, answer] of answers) {
      expect(answer, path).toContain('"status":200');
      for (const secret of secrets) expect(answer.includes(secret), `${path} shows ${secret}`).toBe(false);
    }
  });

  it('shows references as written and what is not a secret as it is', async () => {
    const { json } = await gw.admin('GET', '/api/v1/admin/config');
    expect(json.yaml).toContain('api_key: { env: CONFIG_UPSTREAM_KEY }');
    expect(json.yaml).toContain('governance_secret: { file: ./governance.secret }');
    expect(json.yaml).toContain('url: { env: CONFIG_HOOK_URL }');
    expect(json.yaml).toContain('key: { env: CONFIG_TLS_KEY }');
    expect(json.yaml).toContain("x-hook-key: '***'");
    expect(json.yaml).toContain("x-org-token: '***', OpenAI-Organization: org-visible");
    expect(json.yaml).toContain('x-team: platform');
    expect(json.yaml).toContain('url: "https://***@hooks.example.test/in?sig=***&team=***"');
    expect(json.yaml).toContain('# rotated from *** on Monday');
    const diff = (await gw.admin('GET', '/api/v1/admin/config/diff')).json.diff as string;
    expect(diff).toContain('+# rotated from *** on Monday');
  });

  it('rollback restores the exact text, secrets and all, though it was shown masked', async () => {
    const v1 = (await gw.admin('GET', '/api/v1/admin/config/versions')).json.data.at(-1);
    const { status } = await gw.admin('POST', '/api/v1/admin/config/rollback', { version: v1.version });
    expect(status).toBe(200);
    const text = readFileSync(gw.file, 'utf8');
    expect(text).toContain(PLAIN_PROVIDER_HEADER);
    expect(text).not.toContain('rotated from');
    expect(gw.gateway.configControl.current().configVersion).toBe(v1.config_version);
  });
});
