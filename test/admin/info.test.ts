// The admin plane through a real gateway: GET /api/v1/admin/info, admin-token auth, and the error
// shape for everything else. The harness checks every 2xx answer against spec/openapi.json.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway } from '../../server/app/start-gateway.ts';
import { ConfigError } from '../../server/config/config-error.ts';
import { loadConfigText } from '../../server/config/load-config.ts';
import { createLogger } from '../../server/shared/logger.ts';
import { startHarness, type Harness } from '../support/gateway-harness.ts';
import { makeTlsFixtures } from '../support/tls-fixtures.ts';

const PACKAGE_VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const INFO = '/api/v1/admin/info';
const POOLS = `pools:
  chat: { members: [ { model: gpt, weight: 3 }, { model: claude } ] }
`;

interface ErrorView {
  error: { code: string; message: string };
}

async function expectAdminError(response: Response, status: number, code: string): Promise<ErrorView> {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const body = (await response.json()) as ErrorView;
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe('string');
  expect(body.error.message.length).toBeGreaterThan(0);
  return body;
}

describe('GET /api/v1/admin/info (no admin token configured)', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({ extraYaml: POOLS });
  });
  afterAll(() => harness.close());

  it('answers the InfoView of the running gateway', async () => {
    const response = await fetch(`${harness.adminUrl}${INFO}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const info = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(info).sort()).toEqual(['build', 'config_version', 'topology', 'uptime_seconds', 'version']);
    expect(info.version).toBe(PACKAGE_VERSION);
    expect(info.config_version).toMatch(/^cfg_[0-9a-f]{16}$/);
    expect(info.config_version).toBe(harness.gateway.config.configVersion);
    expect(info.topology).toEqual({
      models: [
        { name: 'gpt', provider: 'openai', protocol: 'openai', upstream_model: 'gpt-4.1-mini' },
        { name: 'claude', provider: 'anthropic', protocol: 'anthropic', upstream_model: 'claude-sonnet-4-5' },
        { name: 'claude-default-tokens', provider: 'anthropic', protocol: 'anthropic', upstream_model: 'claude-haiku-4-5' },
      ],
      pools: [
        {
          name: 'chat',
          members: [
            { model: 'gpt', weight: 3, provider: 'openai', protocol: 'openai' },
            { model: 'claude', weight: 1, provider: 'anthropic', protocol: 'anthropic' },
          ],
        },
      ],
    });
    const build = info.build as { node: string; modules: string[] };
    expect(build.node).toBe(process.versions.node); // the harness runs the server in this process
    expect(build.modules).toEqual(expect.arrayContaining(['protocol:openai', 'protocol:anthropic', 'admin']));
    expect(typeof info.uptime_seconds).toBe('number');
    expect(info.uptime_seconds).toBeGreaterThanOrEqual(0);
  });

  it('counts uptime up', async () => {
    const first = ((await (await fetch(`${harness.adminUrl}${INFO}`)).json()) as { uptime_seconds: number }).uptime_seconds;
    await new Promise((resolve) => setTimeout(resolve, 50));
    const second = ((await (await fetch(`${harness.adminUrl}${INFO}`)).json()) as { uptime_seconds: number }).uptime_seconds;
    expect(second).toBeGreaterThan(first);
  });

  it('needs no token when none is configured (loopback only)', async () => {
    const response = await fetch(`${harness.adminUrl}${INFO}`, { headers: { 'x-admin-token': 'anything' } });
    expect(response.status).toBe(200);
  });

  it('an unknown admin path is a 404 in the admin error shape', async () => {
    await expectAdminError(await fetch(`${harness.adminUrl}/api/v1/admin/nope`), 404, 'not_found');
    await expectAdminError(await fetch(`${harness.adminUrl}/`), 404, 'not_found');
  });

  it('a data-plane route asked of the admin plane is a 404', async () => {
    const body = await expectAdminError(await fetch(`${harness.adminUrl}/healthz`), 404, 'not_found');
    expect(body.error.message).toContain('data plane');
  });

  it('POST on info is a 405 that says which methods the path has', async () => {
    const response = await fetch(`${harness.adminUrl}${INFO}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    await expectAdminError(response, 405, 'method_not_allowed');
    expect(response.headers.get('allow')).toBe('GET');
    await expectAdminError(await fetch(`${harness.adminUrl}${INFO}`, { method: 'DELETE' }), 405, 'method_not_allowed');
  });

  it('the data plane does not serve the admin API', async () => {
    const response = await fetch(`${harness.url}${INFO}`);
    expect(response.status).toBe(404);
  });
});

describe('admin token', () => {
  const TOKEN = 'admin-token-for-tests-0123456789';
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({ env: { GATEWAY_ADMIN_TOKEN: TOKEN } });
  });
  afterAll(() => harness.close());

  it('is read from GATEWAY_ADMIN_TOKEN', () => {
    expect(harness.gateway.config.adminToken).toBe(TOKEN);
  });

  it('no header: 401 unauthorized', async () => {
    const body = await expectAdminError(await fetch(`${harness.adminUrl}${INFO}`), 401, 'unauthorized');
    expect(body.error.message).not.toContain(TOKEN);
  });

  it.each([
    ['x-admin-token', { 'x-admin-token': 'wrong' }],
    ['x-admin-token, a prefix of the token', { 'x-admin-token': TOKEN.slice(0, -1) }],
    ['x-admin-token, the token with more after it', { 'x-admin-token': `${TOKEN}x` }],
    ['Authorization: Bearer', { authorization: 'Bearer wrong' }],
    ['Authorization: Basic with the token', { authorization: `Basic ${TOKEN}` }],
    ['Authorization with no scheme', { authorization: TOKEN }],
  ])('a wrong token (%s): 401', async (_, headers) => {
    await expectAdminError(await fetch(`${harness.adminUrl}${INFO}`, { headers }), 401, 'unauthorized');
  });

  it('x-admin-token: <token> is let in', async () => {
    const response = await fetch(`${harness.adminUrl}${INFO}`, { headers: { 'x-admin-token': TOKEN } });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { version: string }).version).toBe(PACKAGE_VERSION);
  });

  it('Authorization: Bearer <token> is let in (any case of "Bearer")', async () => {
    for (const scheme of ['Bearer', 'bearer']) {
      const response = await fetch(`${harness.adminUrl}${INFO}`, { headers: { authorization: `${scheme} ${TOKEN}` } });
      expect(response.status).toBe(200);
    }
  });
});

describe('startGateway', () => {
  const text = 'listen: 127.0.0.1:0\nadmin_listen: 127.0.0.1:0\nlog_level: silent\n';

  it('refuses a non-loopback admin_listen with no token', async () => {
    const loaded = loadConfigText(text, '/virtual/config.yaml', '/virtual', { env: {} });
    // load-config refuses this too; startGateway checks again for configs built any other way.
    const exposed = { ...loaded, adminListen: { host: '0.0.0.0', port: 0 } };
    const error = await startGateway(exposed, { log: createLogger('silent') }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([expect.objectContaining({ file: '/virtual/config.yaml', path: 'admin_listen' })]);
    expect((error as ConfigError).message).toContain('admin_listen: the admin plane would listen on 0.0.0.0, beyond loopback, with no admin token');
  });

  it('a busy admin port fails the start and releases the data port it had taken', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const free = createServer();
    await new Promise<void>((resolve) => free.listen(0, '127.0.0.1', resolve));
    const dataPort = (free.address() as AddressInfo).port;
    await new Promise<void>((resolve) => free.close(() => resolve()));
    try {
      const loaded = loadConfigText(
        `listen: 127.0.0.1:${dataPort}\nadmin_listen: 127.0.0.1:${(busy.address() as AddressInfo).port}\n`,
        '/virtual/config.yaml',
        '/virtual',
        { env: {} },
      );
      await expect(startGateway(loaded, { log: createLogger('silent') })).rejects.toMatchObject({ code: 'EADDRINUSE' });
      // The data port is free again: a second server can take it.
      const again = createServer();
      await new Promise<void>((resolve, reject) => {
        again.once('error', reject);
        again.listen(dataPort, '127.0.0.1', resolve);
      });
      await new Promise<void>((resolve) => again.close(() => resolve()));
    } finally {
      await new Promise<void>((resolve) => busy.close(() => resolve()));
    }
  });

  it('beyond loopback: serves HTTPS with mTLS, and then asks for the token', async () => {
    const tls = makeTlsFixtures();
    const withTls = text.replace(
      'admin_listen: 127.0.0.1:0',
      `admin_listen: 0.0.0.0:0\nadmin_tls: { cert: ${tls.files.serverCert}, key: ${tls.files.serverKey}, client_ca: ${tls.files.ca} }`,
    );
    const loaded = loadConfigText(withTls, '/virtual/config.yaml', '/virtual', { env: { GATEWAY_ADMIN_TOKEN: 'tok' } });
    const gateway = await startGateway(loaded, { log: createLogger('silent') });
    const client = (cert: string, key: string) => new Agent({ connect: { ca: tls.pem.ca, cert, key } });
    try {
      expect(gateway.adminUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const trusted = client(tls.pem.clientCert, tls.pem.clientKey);
      expect((await undiciFetch(`${gateway.adminUrl}${INFO}`, { dispatcher: trusted })).status).toBe(401);
      expect((await undiciFetch(`${gateway.adminUrl}${INFO}`, { dispatcher: trusted, headers: { 'x-admin-token': 'tok' } })).status).toBe(200);
      // A client certificate from an untrusted CA, or none, fails the handshake.
      await expect(undiciFetch(`${gateway.adminUrl}${INFO}`, { dispatcher: client(tls.pem.otherCert, tls.pem.otherKey) })).rejects.toThrow();
      await expect(undiciFetch(`${gateway.adminUrl}${INFO}`, { dispatcher: new Agent({ connect: { ca: tls.pem.ca } }) })).rejects.toThrow();
    } finally {
      await gateway.close();
    }
  });
});

describe('GET /api/v1/admin/openapi.json', () => {
  it('serves the spec as written, without derived operationIds, behind the admin token', async () => {
    const h = await startHarness({ env: { GATEWAY_ADMIN_TOKEN: 'spec-token' } });
    try {
      expect((await fetch(`${h.adminUrl}/api/v1/admin/openapi.json`)).status).toBe(401);
      const res = await fetch(`${h.adminUrl}/api/v1/admin/openapi.json`, { headers: { 'x-admin-token': 'spec-token' } });
      expect(res.status).toBe(200);
      const served = (await res.json()) as { openapi: string; paths: Record<string, Record<string, { operationId?: string }>> };
      expect(served).toEqual(JSON.parse(readFileSync(new URL('../../spec/openapi.json', import.meta.url), 'utf8')));
      expect(served.paths['/api/v1/admin/info']?.get?.operationId).toBeUndefined();
    } finally {
      await h.close();
    }
  });
});
