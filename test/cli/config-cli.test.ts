// `gateway-admin config ...` (cli/commands/config.ts) in a child process against a live gateway
// started from a config file with a store: output, --json, exit codes and the problems a person reads.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.ts';
import { baseConfigYaml, CONFIG_ADMIN_TOKEN, startConfigGateway, writeConfigDir, type ConfigGateway } from '../support/config-file-gateway.ts';
import { runToExit, type Exit } from '../support/run-to-exit.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const NODE = join(ROOT, 'node_modules/.bin/node');
const CLI = join(ROOT, 'cli/gateway-admin.ts');
const CFG = /^cfg_[0-9a-f]{16}$/;

describe('gateway-admin config', () => {
  let upstream: MockUpstream;
  let gw: ConfigGateway;
  let work: string;
  let startText: string;
  let startVersion: string;
  const withModel = baseConfigYaml('  gpt-new: { provider: openai, model: gpt-4.1-nano }\ndb_path: ./gateway.db\n');
  const file = (name: string, text: string) => {
    const path = join(work, name);
    writeFileSync(path, text);
    return path;
  };
  const cli = (...args: string[]): Promise<Exit> =>
    runToExit(NODE, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', GATEWAY_ENDPOINT: gw.gateway.adminUrl, GATEWAY_ADMIN_TOKEN: CONFIG_ADMIN_TOKEN } });

  beforeAll(async () => {
    upstream = await startMockUpstream();
    const dir = mkdtempSync(join(tmpdir(), 'gateway-config-cli-'));
    work = mkdtempSync(join(tmpdir(), 'gateway-config-cli-files-'));
    startText = baseConfigYaml('db_path: ./gateway.db\n');
    writeConfigDir(dir, upstream, startText);
    gw = await startConfigGateway({ upstream, dir });
    startVersion = gw.gateway.configControl.current().configVersion;
  });
  afterAll(async () => {
    await gw.close();
    await upstream.close();
  });

  it('--help lists every config command with its arguments', async () => {
    const help = await cli('config', '--help');
    expect(help.code).toBe(0);
    for (const line of ['version', 'show [version]', 'reload', 'validate <file>', 'apply <file>', 'versions', 'diff [from] [to]', 'rollback [version]']) {
      expect(help.stdout).toMatch(new RegExp(`^ {2}${line.replace(/[[\]]/g, '\\$&')}\\s`, 'm'));
    }
    expect((await cli('config', 'rollback', '--help')).stdout.split('\n')[0]).toBe('Usage: gateway-admin config rollback [options] [version]');
  });

  it('show: the running YAML as it is (nothing secret in it); --json: the ConfigView', async () => {
    expect(await cli('config', 'show')).toMatchObject({ code: 0, stdout: startText, stderr: '' });
    const json = await cli('config', 'show', '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({ version: 1, config_version: startVersion, source: gw.file, writable: true, yaml: startText });
  });

  it('validate: valid, or exit 1 with every problem on its own line', async () => {
    expect(await cli('config', 'validate', file('good.yaml', withModel))).toMatchObject({ code: 0, stdout: `${join(work, 'good.yaml')}: valid\n` });
    const bad = file('bad.yaml', baseConfigYaml('  x: { provider: no-such-provider, model: m }\n  y: { provider: also-unknown, model: m }\n'));
    const run = await cli('config', 'validate', bad);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    const lines = run.stderr.trimEnd().split('\n');
    expect(lines[0]).toBe(`gateway-admin: ${bad} is not a valid configuration (2 problems):`);
    expect(lines).toHaveLength(3);
    expect(lines.slice(1).join('\n')).toMatch(/^ {2}.+config\.yaml:\d+:\d+: models\.x\.provider: unknown provider "no-such-provider"/m);
    const json = await cli('config', 'validate', bad, '--json');
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ valid: false, problems: expect.arrayContaining([expect.stringContaining('no-such-provider')]) });
    expect(gw.gateway.configControl.current().configVersion).toBe(startVersion);
  });

  it('apply: written and applied; a broken file refused with its problems (and as JSON on stderr)', async () => {
    const run = await cli('config', 'apply', file('new.yaml', withModel));
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(new RegExp(`^applied: version 2 \\(cfg_[0-9a-f]{16}\\) serves new requests; it was ${startVersion}\\n$`));
    expect(readFileSync(gw.file, 'utf8')).toBe(withModel);

    const broken = file('broken.yaml', 'models: [\n');
    const refused = await cli('config', 'apply', broken);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^gateway-admin: the gateway refused the configuration; the running one keeps serving \(1 problem\):\n {2}.+config\.yaml:\d+:\d+: invalid YAML: .+\n$/,
    );
    const json = await cli('--json', 'config', 'apply', broken);
    expect(json).toMatchObject({ code: 1, stdout: '' });
    expect(JSON.parse(json.stderr)).toMatchObject({
      error: { code: 'config_invalid', status: 422, exit_code: 1, problems: [expect.stringMatching(/invalid YAML/)] },
    });
    expect(readFileSync(gw.file, 'utf8')).toBe(withModel);
  });

  it('apply of a file that cannot be read: exit 1, the reason', async () => {
    const run = await cli('config', 'apply', join(work, 'missing.yaml'));
    expect(run).toMatchObject({ code: 1, stdout: '', stderr: `gateway-admin: cannot read ${join(work, 'missing.yaml')} (ENOENT)\n` });
  });

  it('versions: a table, newest first, and where they are kept', async () => {
    const run = await cli('config', 'versions');
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^VERSION\s+CONFIG VERSION\s+APPLIED AT\s+TRIGGER\s+CURRENT$/);
    expect(lines[1]).toMatch(/^2\s+cfg_[0-9a-f]{16}\s+\S+Z\s+apply\s+\*$/);
    expect(lines[2]).toMatch(new RegExp(`^1\\s+${startVersion}\\s+\\S+Z\\s+start$`));
    expect(lines[3]).toBe('(kept in the store, the last 100)');
    expect(await cli('config', 'show', '1')).toMatchObject({ code: 0, stdout: startText });
    expect(JSON.parse((await cli('config', 'show', '2', '--json')).stdout)).toMatchObject({ version: 2, trigger: 'apply', yaml: withModel });
    const json = JSON.parse((await cli('config', 'versions', '--json')).stdout);
    expect(json).toMatchObject({
      stored: true,
      kept: 100,
      data: [
        { version: 2, current: true },
        { version: 1, current: false },
      ],
    });
    expect(json.data[0].config_version).toMatch(CFG);
  });

  it('diff FROM TO: the unified diff; a version that is not a number is a usage error', async () => {
    const run = await cli('config', 'diff', '1', '2');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`--- v1\t${startVersion}\n+++ v2\t`);
    expect(run.stdout).toContain('+  gpt-new: { provider: openai, model: gpt-4.1-nano }\n');
    expect((await cli('config', 'diff')).stdout).toBe(run.stdout);
    expect((await cli('config', 'diff', '2', '2')).stdout).toBe('versions 2 and 2 are the same\n');
    const usage = await cli('config', 'diff', 'one');
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('expected a version number (1, 2, ...), got "one"');
  });

  it('rollback [VERSION]: the earlier text exactly, as a new version; an unknown version says which are kept', async () => {
    const run = await cli('config', 'rollback');
    expect(run).toMatchObject({
      code: 0,
      stdout: `rolled back: version 3 (${startVersion}) serves new requests; it was ${JSON.parse((await cli('config', 'diff', '--json')).stdout).from.config_version}\n`,
    });
    expect(readFileSync(gw.file, 'utf8')).toBe(startText);
    const unknown = await cli('config', 'rollback', '99');
    expect(unknown).toMatchObject({ code: 1, stderr: 'gateway-admin: no configuration version 99 (kept: 1 to 3) (HTTP 404 not_found)\n' });
  });

  it('reload: unchanged when the file is what runs; applied when it changed', async () => {
    expect(await cli('config', 'reload')).toMatchObject({
      code: 0,
      stdout: `unchanged: the gateway already runs this configuration (version 3, ${startVersion})\n`,
    });
    writeFileSync(gw.file, withModel);
    const json = JSON.parse((await cli('config', 'reload', '--json')).stdout);
    expect(json).toMatchObject({ unchanged: false, previous_config_version: startVersion, version: { version: 4, trigger: 'reload' } });
  });
});
