// The admin plane's loopback rule judges the address, not the spelling: a name beginning with
// "127." is looked up, every address it stands for must be loopback, and the plane binds the
// address that was judged. Without a token, a request whose Host names another site (DNS
// rebinding from a browser) is refused.
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { resolveAdminAddress } from '../../server/app/admin-address.ts';
import { startGateway } from '../../server/app/start-gateway.ts';
import { ConfigError } from '../../server/config/config-error.ts';
import { loadConfigText } from '../../server/config/load-config.ts';
import { isLoopback } from '../../server/config/loopback.ts';
import { createLogger } from '../../server/shared/logger.ts';

const lookupTable = (table: Record<string, string[]>) => async (name: string) => (table[name] ?? []).map((address) => ({ address }));

describe('admin_listen loopback rule', () => {
  it('a name is not loopback by its prefix', () => {
    expect(isLoopback('127.0.0.1.nip.io')).toBe(false);
    expect(isLoopback('127.0.0.1')).toBe(true);
    expect(isLoopback('::ffff:127.0.0.1')).toBe(true);
    expect(isLoopback('::ffff:10.0.0.1')).toBe(false);
  });

  it('a name is judged by every address it resolves to', async () => {
    const dns = lookupTable({ '127.0.0.1.evil.example': ['203.0.113.7'], split: ['127.0.0.1', '203.0.113.7'], 'admin.internal': ['127.0.0.2', '::1'] });
    expect(await resolveAdminAddress('127.0.0.1.evil.example', dns)).toEqual({ address: '203.0.113.7', loopback: false });
    expect(await resolveAdminAddress('split', dns)).toEqual({ address: '127.0.0.1', loopback: false });
    expect(await resolveAdminAddress('admin.internal', dns)).toEqual({ address: '127.0.0.2', loopback: true });
    expect(await resolveAdminAddress('::1', dns)).toEqual({ address: '::1', loopback: true });
  });

  it('a name beyond loopback without a token stops the start, saying what it resolved to', async () => {
    const config = loadConfigText('listen: 127.0.0.1:0\nadmin_listen: localhost:0\nlog_level: silent\n', '/virtual/config.yaml', '/virtual', { env: {} });
    // `localhost` resolves to loopback: the gateway starts and binds the address it judged.
    const gateway = await startGateway(config, { log: createLogger('silent'), workers: 1 });
    try {
      expect(gateway.adminUrl).toMatch(/^http:\/\/(127\.0\.0\.1|\[::1\]):\d+$/);
    } finally {
      await gateway.close();
    }
    // A literal beyond loopback is refused at load already; a name only at start, once resolved.
    expect(() => loadConfigText('admin_listen: 0.0.0.0:0\n', '/virtual/config.yaml', '/virtual', { env: {} })).toThrow(ConfigError);
    const named = loadConfigText('admin_listen: 127.0.0.1.invalid:0\n', '/virtual/config.yaml', '/virtual', { env: {} });
    await expect(startGateway(named, { log: createLogger('silent'), workers: 1 })).rejects.toThrow();
    // That name fails to resolve at all; this one resolves with no DNS server (getaddrinfo reads
    // the decimal form of an IPv4 address, which is no IP literal to the config) to 10.0.0.1, so
    // only the loopback rule can refuse it.
    const decimal = loadConfigText('admin_listen: 167772161:0\n', '/virtual/config.yaml', '/virtual', { env: {} });
    await expect(startGateway(decimal, { log: createLogger('silent'), workers: 1 })).rejects.toThrow(/167772161 \(10\.0\.0\.1\), beyond loopback/);
    // A name that resolves (here to a documentation address) is refused for what it resolved to.
    const refused = await startGateway(named, {
      log: createLogger('silent'),
      workers: 1,
      lookupAdminHost: lookupTable({ '127.0.0.1.invalid': ['203.0.113.7'] }),
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as ConfigError).message).toContain('the admin plane would listen on 127.0.0.1.invalid (203.0.113.7), beyond loopback, with no admin token');
  });
});

function getWithHost(url: string, host: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { host, ...headers }, agent: false }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('admin plane Host check (no token)', () => {
  it('answers its own address and localhost, refuses any other Host with 403', async () => {
    const config = loadConfigText('listen: 127.0.0.1:0\nadmin_listen: 127.0.0.1:0\nlog_level: silent\n', '/virtual/config.yaml', '/virtual', { env: {} });
    const gateway = await startGateway(config, { log: createLogger('silent'), workers: 1 });
    try {
      const info = `${gateway.adminUrl}/api/v1/admin/info`;
      const port = new URL(gateway.adminUrl).port;
      expect((await getWithHost(info, `127.0.0.1:${port}`)).status).toBe(200);
      expect((await getWithHost(info, `localhost:${port}`)).status).toBe(200);
      const rebound = await getWithHost(info, `attacker.example:${port}`);
      expect(rebound.status).toBe(403);
      expect(JSON.parse(rebound.body)).toMatchObject({ error: { code: 'host_not_allowed' } });
      expect((await getWithHost(`${gateway.adminUrl}/stats`, '127.0.0.1.nip.io')).status).toBe(403);
    } finally {
      await gateway.close();
    }
  });

  it('with a token the token decides, whatever the Host', async () => {
    const config = loadConfigText('listen: 127.0.0.1:0\nadmin_listen: 127.0.0.1:0\nlog_level: silent\n', '/virtual/config.yaml', '/virtual', {
      env: { GATEWAY_ADMIN_TOKEN: 'admin-host-test' },
    });
    const gateway = await startGateway(config, { log: createLogger('silent'), workers: 1 });
    try {
      const info = `${gateway.adminUrl}/api/v1/admin/info`;
      expect((await getWithHost(info, 'attacker.example', { 'x-admin-token': 'admin-host-test' })).status).toBe(200);
      expect((await getWithHost(info, 'attacker.example')).status).toBe(401);
    } finally {
      await gateway.close();
    }
  });
});
