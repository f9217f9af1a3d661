// dist/gateway-admin, the admin CLI as a single executable (build/build-cli.ts --executable), as an
// operator runs it: from a directory of its own, no PATH, and Node's permission model refusing any
// read outside that directory (so nothing of the checkout, node_modules or a system node is used),
// against a real gateway whose admin plane requires mTLS.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../server/app/start-gateway.ts';
import { loadConfigFile } from '../../server/config/load-config.ts';
import { createLogger } from '../../server/shared/logger.ts';
import { makeTlsFixtures } from '../support/tls-fixtures.ts';
import { BUILD_TIMEOUT_MS, ensureBuilt } from '../support/build-executables.ts';
import { runToExit, type Exit } from '../support/run-to-exit.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const TOKEN = 'binary-cli-admin-token';

let binary: string;
let dir: string; // the operator's directory: the only one the executable may read
let gateway: RunningGateway;
let env: Record<string, string>;

beforeAll(async () => {
  binary = await ensureBuilt('dist/gateway-admin'); // rebuilt when older than its sources
  const tls = makeTlsFixtures();
  dir = mkdtempSync(join(tmpdir(), 'gateway-admin-binary-'));
  for (const name of ['ca.crt', 'client.crt', 'client.key']) copyFileSync(join(tls.dir, name), join(dir, name));
  const gatewayDir = mkdtempSync(join(tmpdir(), 'gateway-admin-binary-gw-'));
  writeFileSync(
    join(gatewayDir, 'config.yaml'),
    [
      'listen: 127.0.0.1:0',
      'admin_listen: 127.0.0.1:0',
      'log_level: silent',
      'db_path: ./gateway.db',
      `admin_tls: { cert: ${tls.files.serverCert}, key: ${tls.files.serverKey}, client_ca: ${tls.files.ca} }`,
      'models: { demo: { provider: demo, model: demo-echo } }',
    ].join('\n') + '\n',
  );
  gateway = await startGateway(loadConfigFile(join(gatewayDir, 'config.yaml'), { env: { GATEWAY_ADMIN_TOKEN: TOKEN } }), { log: createLogger('silent') });
  env = { PATH: '', HOME: dir, NODE_OPTIONS: `--permission --allow-fs-read=${dir}`, GATEWAY_ENDPOINT: gateway.adminUrl, GATEWAY_ADMIN_TOKEN: TOKEN };
}, BUILD_TIMEOUT_MS + 10_000);

afterAll(async () => {
  await gateway?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

function run(args: readonly string[], extraEnv: Record<string, string> = {}): Promise<Exit> {
  return runToExit(binary, args, { cwd: dir, env: { ...env, ...extraEnv } });
}

describe('dist/gateway-admin, the single executable', () => {
  it('--version prints the version of package.json', async () => {
    expect(await run(['--version'])).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
  });

  it('creates a key with only --rpm over mTLS (--ca-cert, --cert-file, --key-file), reading nothing outside its directory', async () => {
    const mtls = ['--ca-cert', 'ca.crt', '--cert-file', 'client.crt', '--key-file', 'client.key'];
    const created = await run([...mtls, 'keys', 'create', '--rpm', '9', '--name', 'from-the-binary', '--json']);
    expect(created, created.stderr).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(created.stdout)).toMatchObject({ name: 'from-the-binary', rpm: 9, budget_cents: null, secret: expect.stringMatching(/^gwk_/) });
    const info = await run([...mtls, 'info']);
    expect(info).toMatchObject({ code: 0, stderr: '' });
    expect(info.stdout).toMatch(new RegExp(`^version:\\s+${VERSION.replaceAll('.', '\\.')}$`, 'm'));
    // The control: the sandbox is in force, so a certificate outside the directory cannot be read.
    mkdirSync(join(dir, 'inner'), { recursive: true });
    const denied = await run([...mtls, 'info'], { NODE_OPTIONS: `--permission --allow-fs-read=${join(dir, 'inner')}` });
    expect(denied.code).toBe(2);
    expect(denied.stderr).toBe('gateway-admin: cannot read the --ca-cert file ca.crt (ERR_ACCESS_DENIED)\n');
  });

  it('--json failures are JSON here too', async () => {
    const missing = await run([
      '--ca-cert',
      'ca.crt',
      '--client-cert',
      'client.crt',
      '--client-key',
      'client.key',
      'keys',
      'revoke',
      'key_00000000000000000000000000',
      '--json',
    ]);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stderr)).toMatchObject({ error: { code: 'not_found', status: 404, exit_code: 1 } });
  });
});
