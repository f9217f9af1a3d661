// When apply and rollback cannot write the config file: a read-only file system (as a mounted
// ConfigMap is) and the embedded default configuration, which has no file. The tests run as root,
// which file modes do not stop, so the directory is a tmpfs remounted read-only: the kernel then
// refuses every write (EROFS) whoever asks.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../server/app/start-gateway.ts';
import { EMBEDDED_DEFAULT_CONFIG } from '../../server/config/embedded-default.ts';
import { loadConfigFile } from '../../server/config/load-config.ts';
import { createLogger } from '../../server/shared/logger.ts';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.ts';
import { baseConfigYaml, startConfigGateway, writeConfigDir, type ConfigGateway } from '../support/config-file-gateway.ts';

/** Whether this machine lets the tests mount a file system (root with CAP_SYS_ADMIN). */
function canMount(): boolean {
  const probe = mkdtempSync(join(tmpdir(), 'gateway-mount-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe], { stdio: 'pipe' });
    execFileSync('umount', [probe], { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}

describe.skipIf(!canMount())('apply on a read-only file system (skipped where mounting is not permitted)', () => {
  let upstream: MockUpstream;
  let gw: ConfigGateway;
  let dir: string;
  let startText: string;
  beforeAll(async () => {
    upstream = await startMockUpstream();
    dir = mkdtempSync(join(tmpdir(), 'gateway-config-ro-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', dir]);
    startText = baseConfigYaml();
    writeConfigDir(dir, upstream, startText);
    execFileSync('mount', ['-o', 'remount,ro', dir]);
    gw = await startConfigGateway({ upstream, dir });
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.close();
    execFileSync('umount', [dir]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('GET config says the file cannot be written', async () => {
    expect((await gw.admin('GET', '/api/v1/admin/config')).json).toMatchObject({ source: gw.file, writable: false });
  });

  it('apply is refused with the reason (409), nothing applied, the file as it was', async () => {
    const { status, json } = await gw.admin('POST', '/api/v1/admin/config/apply', baseConfigYaml('  gpt-new: { provider: openai, model: gpt-4.1-nano }\n'));
    expect(status).toBe(409);
    expect(json.error.code).toBe('config_not_writable');
    expect(json.error.message).toBe(
      `cannot write the config file ${gw.file} (create a temporary file beside it): it is on a read-only file system (a mounted ConfigMap or a read-only volume): change the configuration at its source and reload (EROFS); the running configuration is unchanged`,
    );
    expect(readFileSync(gw.file, 'utf8')).toBe(startText);
    const client = new OpenAI({ baseURL: `${gw.gateway.dataUrl}/v1`, apiKey: 'unused', maxRetries: 0 });
    await expect(client.chat.completions.create({ model: 'gpt-new', messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({ status: 404 });
    expect((await gw.admin('GET', '/api/v1/admin/config/versions')).json.data).toHaveLength(1);
  });

  it('an invalid configuration is still answered with its problems first (422)', async () => {
    const { status, json } = await gw.admin('POST', '/api/v1/admin/config/apply', 'models: [');
    expect(status).toBe(422);
    expect(json.error.code).toBe('config_invalid');
  });

  it('rollback with nothing to roll back to says so (409)', async () => {
    const { status, json } = await gw.admin('POST', '/api/v1/admin/config/rollback');
    expect(status).toBe(409);
    expect(json.error).toEqual({ code: 'no_previous_version', message: 'there is no earlier version to roll back to: only the running one is kept' });
  });

  it('reload still reads the file', async () => {
    expect((await gw.admin('POST', '/api/v1/admin/config/reload')).json).toMatchObject({ unchanged: true });
  });
});

describe('apply on the embedded default configuration', () => {
  let gateway: RunningGateway;
  const token = 'embedded-admin-token-31';
  const admin = async (method: string, path: string, body?: string): Promise<{ status: number; json: any }> => {
    const response = await fetch(`${gateway.adminUrl}${path}`, {
      method,
      headers: { 'x-admin-token': token, ...(body !== undefined && { 'content-type': 'application/yaml' }) },
      ...(body !== undefined && { body }),
    });
    return { status: response.status, json: await response.json() };
  };
  beforeAll(async () => {
    const loadOptions = {
      env: { GATEWAY_ADMIN_TOKEN: token },
      overrides: { listen: { value: '127.0.0.1:0', from: 'test' }, adminListen: { value: '127.0.0.1:0', from: 'test' } },
    };
    gateway = await startGateway(loadConfigFile(undefined, loadOptions), {
      log: createLogger('silent'),
      workers: 1,
      validateAdminResponses: true,
      loadOptions,
    });
  });
  afterAll(() => gateway?.close());

  it('shows it, not writable', async () => {
    const { json } = await admin('GET', '/api/v1/admin/config');
    expect(json).toMatchObject({ version: 1, source: '(embedded default)', writable: false, yaml: EMBEDDED_DEFAULT_CONFIG });
  });

  it('refuses apply: there is no file to write (409 no_config_file)', async () => {
    const { status, json } = await admin('POST', '/api/v1/admin/config/apply', EMBEDDED_DEFAULT_CONFIG.replace('demo-pool', 'other-pool'));
    expect(status).toBe(409);
    expect(json.error.code).toBe('no_config_file');
    expect(json.error.message).toContain('start it with --config FILE');
  });

  it('refuses reload with the reason as a problem (422)', async () => {
    const { status, json } = await admin('POST', '/api/v1/admin/config/reload');
    expect(status).toBe(422);
    expect(json.error.problems[0]).toContain('embedded default');
  });
});
