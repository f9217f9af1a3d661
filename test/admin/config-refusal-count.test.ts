// gateway_config_reloads_total{result="refused"} counts every refused change once, whichever step
// refused it: the admin apply's and rollback's own validation (before the file is written) as
// well as the control's (a reload of a broken file). A validate only asks, and counts nothing.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.ts';
import { baseConfigYaml, startConfigGateway, type ConfigGateway } from '../support/config-file-gateway.ts';

let upstream: MockUpstream;
let gw: ConfigGateway;
beforeAll(async () => {
  upstream = await startMockUpstream();
  gw = await startConfigGateway({ upstream });
});
afterAll(async () => {
  await gw.close();
  await upstream.close();
});

const counted = async (result: string) =>
  Number(new RegExp(`gateway_config_reloads_total\\{result="${result}"\\} (\\d+)`).exec(await (await fetch(`${gw.gateway.dataUrl}/metrics`)).text())?.[1] ?? 0);
const BROKEN = baseConfigYaml('  nowhere: { provider: no-such-provider, model: m }\n');

describe('refused configuration changes are counted once each', () => {
  it('a validate of a broken text counts nothing', async () => {
    const before = await counted('refused');
    expect((await gw.admin('POST', '/api/v1/admin/config/validate', BROKEN)).json.valid).toBe(false);
    expect(await counted('refused')).toBe(before);
  });

  it('an apply refused at validation counts one', async () => {
    const before = await counted('refused');
    expect((await gw.admin('POST', '/api/v1/admin/config/apply', BROKEN)).status).toBe(422);
    expect(await counted('refused')).toBe(before + 1);
  });

  it('a reload of a broken file counts one', async () => {
    const before = await counted('refused');
    const good = baseConfigYaml();
    writeFileSync(gw.file, BROKEN);
    try {
      expect((await gw.admin('POST', '/api/v1/admin/config/reload')).status).toBe(422);
    } finally {
      writeFileSync(gw.file, good);
    }
    expect(await counted('refused')).toBe(before + 1);
  });

  it('a rollback to a version that no longer loads (its secret file is gone) counts one', async () => {
    const secretFile = join(gw.dir, 'upstream.key');
    writeFileSync(secretFile, 'sk-from-a-file\n');
    const withFile = baseConfigYaml().replace('{ env: CONFIG_UPSTREAM_KEY }', '{ file: ./upstream.key }');
    const applied = await gw.admin('POST', '/api/v1/admin/config/apply', withFile);
    expect(applied.status).toBe(200);
    expect((await gw.admin('POST', '/api/v1/admin/config/apply', baseConfigYaml('  other: { provider: openai, model: gpt-4.1-nano }\n'))).status).toBe(200);
    rmSync(secretFile);
    const before = await counted('refused');
    const rollback = await gw.admin('POST', '/api/v1/admin/config/rollback', { version: applied.json.version.version });
    expect(rollback.status).toBe(422);
    expect(rollback.json.error.problems.join('\n')).toMatch(/providers\.openai\.api_key/);
    expect(await counted('refused')).toBe(before + 1);
  });
});
