// The real `gateway-admin` CLI (cli/gateway-admin.ts) in a child process against real gateways:
// one on plain HTTP with a SQLite store, one whose admin plane requires mTLS. Checks output (table
// and --json), exit codes and the error messages a person reads.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../server/app/start-gateway.ts';
import { loadConfigFile } from '../../server/config/load-config.ts';
import { createLogger } from '../../server/shared/logger.ts';
import { startHarness, type Harness } from '../support/gateway-harness.ts';
import { answerJson, startHookReceiver, type HookReceiver } from '../support/hook-receiver.ts';
import { runToExit, type Exit } from '../support/run-to-exit.ts';
import { makeTlsFixtures, type TlsFixtures } from '../support/tls-fixtures.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const NODE = join(ROOT, 'node_modules/.bin/node');
const CLI = join(ROOT, 'cli/gateway-admin.ts');
const PACKAGE_VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const TOKEN = 'cli-test-admin-token';
const KEY_ID = /^key_[0-9A-Z]{26}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Runs the CLI to completion with only PATH and `env` in its environment; a non-zero exit is a result. */
function cli(args: readonly string[], env: Record<string, string> = {}): Promise<Exit> {
  return runToExit(NODE, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', ...env } });
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("the repository's bin scripts", () => {
  it('are committed executable, so npx (which makes them so) leaves the tree clean', () => {
    const bins = Object.values((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin);
    expect(bins).toContain('cli/gateway-admin.ts');
    const modes = execFileSync('git', ['ls-files', '--stage', '--', ...bins], { cwd: ROOT, encoding: 'utf8' })
      .trim()
      .split('\n')
      .map((line) => line.split(/\s+/));
    expect(modes.map(([mode, , , path]) => [path, mode])).toEqual(bins.sort().map((bin) => [bin, '100755'])); // git lists by path
  });
});

describe('gateway-admin over HTTP', () => {
  let harness: Harness;
  let as: Record<string, string>;
  beforeAll(async () => {
    harness = await startHarness({ extraYaml: 'db_path: ./gateway.db\n', env: { GATEWAY_ADMIN_TOKEN: TOKEN } });
    as = { GATEWAY_ENDPOINT: harness.adminUrl, GATEWAY_ADMIN_TOKEN: TOKEN };
  });
  afterAll(() => harness.close());

  it('info: a readable summary with the server version, the config version and the topology', async () => {
    const run = await cli(['info'], as);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const lines = run.stdout.split('\n');
    expect(lines.slice(0, 2)).toEqual([`version:        ${PACKAGE_VERSION}`, `config version: ${harness.gateway.config.configVersion}`]);
    expect(lines[2]).toMatch(/^uptime:\s+\d+s$/);
    expect(lines[3]).toBe(`node:           ${process.versions.node}`);
    expect(lines).toContain('MODEL                  PROVIDER   PROTOCOL   UPSTREAM MODEL');
    expect(lines).toContain('gpt                    openai     openai     gpt-4.1-mini');
    expect(lines).toContain('claude                 anthropic  anthropic  claude-sonnet-4-5');
    expect(lines).toContain('claude-default-tokens  anthropic  anthropic  claude-haiku-4-5');
    expect(lines).toContain('pools: none');
  });

  it('info --json: the InfoView as the admin API answers it', async () => {
    const run = await cli(['info', '--json'], as);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const info = JSON.parse(run.stdout) as { version: string; config_version: string; topology: { models: { name: string }[]; pools: unknown[] } };
    expect(info.version).toBe(PACKAGE_VERSION);
    expect(info.config_version).toBe(harness.gateway.config.configVersion);
    expect(info.topology.models.map((m) => m.name)).toEqual(['gpt', 'claude', 'claude-default-tokens']);
    expect(info.topology.pools).toEqual([]);
    // --json before the command works too, and the flags win over the environment.
    const early = await cli(['--json', '--endpoint', harness.adminUrl, '--token', TOKEN, 'info'], {
      GATEWAY_ENDPOINT: 'http://127.0.0.1:1',
      GATEWAY_ADMIN_TOKEN: 'wrong',
    });
    expect(early.code).toBe(0);
    expect(JSON.parse(early.stdout)).toMatchObject({ version: PACKAGE_VERSION });
  });

  it('keys create, list, revoke (--json parsed, and the tables)', async () => {
    const created = await cli(['keys', 'create', '--budget-cents', '250', '--rpm', '30', '--name', 'cli-test', '--json'], as);
    expect(created).toMatchObject({ code: 0, stderr: '' });
    const key = JSON.parse(created.stdout) as Record<string, unknown> & { id: string; secret: string; prefix: string; created_at: string };
    expect(key.id).toMatch(KEY_ID);
    expect(key.secret).toMatch(/^gwk_[A-Za-z0-9_-]{43}$/);
    expect(key).toEqual({
      id: key.id,
      name: 'cli-test',
      owner: null,
      prefix: key.secret.slice(0, 8),
      budget_cents: 250,
      budget_period: null,
      spent_cents: 0,
      spent_usd: '0.00000000',
      lifetime_spent_cents: 0,
      lifetime_spent_usd: '0.00000000',
      reserved_cents: 0,
      reserved_usd: '0.00000000',
      remaining_cents: 250,
      remaining_usd: '2.50000000',
      period_started_at: null,
      rpm: 30,
      tpm: null,
      models: null,
      expires_at: null,
      team: null,
      metadata: {},
      self_serve: false,
      created_at: key.created_at,
      last_used_at: null,
      revoked_at: null,
      rotated_at: null,
      previous_secret_until: null,
      secret: key.secret,
    });

    const table = await cli(['keys', 'create', '--budget-cents', '1234', '--rpm', '5', '--owner', 'ops'], as);
    expect(table).toMatchObject({ code: 0, stderr: '' });
    const secondId = /^id:\s+(key_\S+)$/m.exec(table.stdout)?.[1];
    expect(secondId).toMatch(KEY_ID);
    expect(table.stdout).toMatch(/^budget:\s+\$12\.34 \(lifetime\)$/m);
    expect(table.stdout).toMatch(/^rpm:\s+5$/m);
    expect(table.stdout).toMatch(/^secret:\s+gwk_[A-Za-z0-9_-]{43}$/m);
    expect(table.stdout).toContain('The secret is shown this once: store it now.');

    const listed = await cli(['keys', 'list', '--json'], as);
    expect(listed).toMatchObject({ code: 0, stderr: '' });
    const list = JSON.parse(listed.stdout) as { data: Record<string, unknown>[] };
    expect(list.data.map((k) => k.id)).toEqual([key.id, secondId]);
    expect(list.data.every((k) => !('secret' in k))).toBe(true);
    expect(list.data[0]).toEqual({ ...key, secret: undefined });

    const listTable = await cli(['keys', 'list'], as);
    expect(listTable.code).toBe(0);
    const rows = listTable.stdout.trimEnd().split('\n');
    expect(rows[0]).toMatch(/^ID\s+NAME\s+OWNER\s+PREFIX\s+BUDGET\s+SPENT\s+REMAINING\s+RPM\s+TPM\s+TEAM\s+EXPIRES\s+CREATED\s+STATUS$/);
    expect(rows.slice(1).map((r) => r.split(/\s+/).filter((c) => !c.startsWith('20')))).toEqual([
      [key.id, 'cli-test', key.prefix, '$2.50', '$0.00', '$2.50', '30', 'none', '-', 'never', 'active'],
      [secondId, 'ops', expect.stringMatching(/^gwk_/), '$12.34', '$0.00', '$12.34', '5', 'none', '-', 'never', 'active'],
    ]);
    expect(listTable.stdout).not.toContain(key.secret);

    const revoked = await cli(['keys', 'revoke', key.id], as);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toMatch(new RegExp(`^revoked ${key.id} \\(cli-test\\) at \\d{4}-\\d{2}-\\d{2}T[\\d:.]+Z\\n$`));
    const again = await cli(['keys', 'revoke', key.id, '--json'], as);
    expect(again.code).toBe(0);
    const revokedKey = JSON.parse(again.stdout) as { id: string; revoked_at: string };
    expect(revokedKey.id).toBe(key.id);
    expect(revokedKey.revoked_at).toMatch(ISO);
    const after = JSON.parse((await cli(['keys', 'list', '--json'], as)).stdout) as { data: { id: string; revoked_at: string | null }[] };
    expect(after.data.map((k) => [k.id, k.revoked_at])).toEqual([
      [key.id, revokedKey.revoked_at],
      [secondId, null],
    ]);
    expect((await cli(['keys', 'list'], as)).stdout).toMatch(new RegExp(`^${key.id} .* revoked$`, 'm'));
  });

  it('keys create with either limit, or neither, as the admin API allows', async () => {
    const create = async (flags: string[]) => {
      const run = await cli(['keys', 'create', ...flags, '--json'], as);
      expect(run, flags.join(' ')).toMatchObject({ code: 0, stderr: '' });
      return JSON.parse(run.stdout) as { budget_cents: number | null; remaining_cents: number | null; rpm: number | null };
    };
    expect(await create(['--rpm', '12'])).toMatchObject({ budget_cents: null, remaining_cents: null, rpm: 12 });
    expect(await create(['--budget-cents', '99'])).toMatchObject({ budget_cents: 99, remaining_cents: 99, rpm: null });
    expect(await create(['--name', 'unlimited'])).toMatchObject({ budget_cents: null, rpm: null });
    const text = await cli(['keys', 'create', '--rpm', '3'], as);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^budget:\s+none$/m);
  });

  it('--json makes failures one JSON object on stderr, with the exit codes of text mode', async () => {
    const parse = (run: Exit) => {
      expect(run.stdout).toBe('');
      expect(run.stderr.endsWith('\n') && !run.stderr.slice(0, -1).includes('\n')).toBe(true);
      return JSON.parse(run.stderr) as { error: { code: string; message: string; status?: number; exit_code: number } };
    };
    const missing = await cli(['keys', 'revoke', 'key_00000000000000000000000000', '--json'], as);
    expect(missing.code).toBe(1);
    expect(parse(missing)).toEqual({
      error: { code: 'not_found', message: 'no key with id "key_00000000000000000000000000" (HTTP 404 not_found)', status: 404, exit_code: 1 },
    });
    const wrongToken = await cli(['--json', 'info'], { GATEWAY_ENDPOINT: harness.adminUrl, GATEWAY_ADMIN_TOKEN: 'wrong-token' });
    expect(wrongToken.code).toBe(1);
    const unauthorized = parse(wrongToken).error;
    expect(unauthorized).toMatchObject({
      status: 401,
      exit_code: 1,
      message: `the admin plane at ${harness.adminUrl} refused the admin token from GATEWAY_ADMIN_TOKEN (401 unauthorized): check the token`,
    });
    expect(unauthorized.code).toMatch(/^[a-z_]+$/);
    expect(JSON.stringify(unauthorized)).not.toContain('wrong-token');
    const unreachable = await cli(['info', '--json', '--endpoint', `http://127.0.0.1:${await closedPort()}`]);
    expect(unreachable.code).toBe(1);
    expect(parse(unreachable).error).toMatchObject({ code: 'unreachable', exit_code: 1 });
    // Usage errors found by the parser (commander) and by the CLI's own checks: exit 2, code "usage".
    for (const args of [
      ['keys', 'create', '--rpm', '0', '--json'],
      ['keys', 'revoke', '--json'],
      ['--json', 'info', '--endpoint', 'localhost:8081'],
      ['keys', '--json'],
      ['keys', 'frobnicate', '--json'],
    ]) {
      const run = await cli(args, as);
      expect(run.code, args.join(' ')).toBe(2);
      expect(parse(run).error, args.join(' ')).toMatchObject({ code: 'usage', exit_code: 2 });
    }
    // Without --json the same failure stays a sentence.
    expect((await cli(['keys', 'revoke', 'key_00000000000000000000000000'], as)).stderr).toMatch(/^gateway-admin: no key/);
  });

  it("keys revoke of an unknown id: exit 1 and the gateway's reason", async () => {
    const run = await cli(['keys', 'revoke', 'key_00000000000000000000000000'], as);
    expect(run).toEqual({ code: 1, stdout: '', stderr: 'gateway-admin: no key with id "key_00000000000000000000000000" (HTTP 404 not_found)\n' });
  });

  it('config version (text and --json)', async () => {
    const text = await cli(['config', 'version'], as);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`^config version: ${harness.gateway.config.configVersion}\\nloaded at:      \\d{4}-[\\d-]+T[\\d:.]+Z\\n$`));
    const json = await cli(['config', 'version', '--json'], as);
    expect(json.code).toBe(0);
    const body = JSON.parse(json.stdout) as { config_version: string; loaded_at: string };
    expect(body.config_version).toBe(harness.gateway.config.configVersion);
    expect(body.loaded_at).toMatch(ISO);
    expect(Object.keys(body).sort()).toEqual(['config_version', 'loaded_at']);
  });

  it('a wrong token or none: exit 1 and a message saying what to do', async () => {
    const wrong = await cli(['info', '--token', 'wrong-token'], { GATEWAY_ENDPOINT: harness.adminUrl });
    expect(wrong).toEqual({
      code: 1,
      stdout: '',
      stderr: `gateway-admin: the admin plane at ${harness.adminUrl} refused the admin token from --token (401 unauthorized): check the token\n`,
    });
    const wrongEnv = await cli(['keys', 'list'], { GATEWAY_ENDPOINT: harness.adminUrl, GATEWAY_ADMIN_TOKEN: 'wrong-token' });
    expect(wrongEnv.stderr).toBe(
      `gateway-admin: the admin plane at ${harness.adminUrl} refused the admin token from GATEWAY_ADMIN_TOKEN (401 unauthorized): check the token\n`,
    );
    const none = await cli(['config', 'version', '--endpoint', harness.adminUrl]);
    expect(none).toEqual({
      code: 1,
      stdout: '',
      stderr: `gateway-admin: the admin plane at ${harness.adminUrl} needs an admin token (401 unauthorized): pass --token or set GATEWAY_ADMIN_TOKEN\n`,
    });
  });

  it('an unreachable endpoint: exit 1, "cannot reach"', async () => {
    const endpoint = `http://127.0.0.1:${await closedPort()}`;
    const run = await cli(['info', '--endpoint', endpoint, '--token', TOKEN]);
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr: `gateway-admin: cannot reach the admin plane at ${endpoint}: connection refused (is the gateway running, and is its admin plane on this address?)\n`,
    });
  });

  it('invalid flag values: exit 2 and a message naming the flag', async () => {
    const cases: [string[], string][] = [
      [
        ['keys', 'create', '--budget-cents', 'abc', '--rpm', '5'],
        `gateway-admin: option '--budget-cents <int>' argument 'abc' is invalid. expected a whole number from 0 to 1000000000000, got "abc"`,
      ],
      [
        ['keys', 'create', '--budget-cents', '-5', '--rpm', '5'],
        `gateway-admin: option '--budget-cents <int>' argument '-5' is invalid. must be from 0 to 1000000000000, got -5`,
      ],
      [
        ['keys', 'create', '--budget-cents', '10', '--rpm', '0'],
        `gateway-admin: option '--rpm <int>' argument '0' is invalid. must be from 1 to 1000000, got 0`,
      ],
      [
        ['keys', 'create', '--budget-cents', '10', '--rpm', '1.5'],
        `gateway-admin: option '--rpm <int>' argument '1.5' is invalid. expected a whole number from 1 to 1000000, got "1.5"`,
      ],
      [['keys', 'revoke'], `gateway-admin: missing required argument 'id'`],
      [['keys', 'frobnicate'], `gateway-admin: unknown command 'frobnicate'`],
      [['info', '--endpoint', 'localhost:8081'], `gateway-admin: --endpoint "localhost:8081" must start with http:// or https://`],
      [
        ['info', '--endpoint', 'not a url'],
        `gateway-admin: --endpoint "not a url" is not a URL: give one like http://127.0.0.1:8081 or https://gateway.internal:8081`,
      ],
    ];
    const keyCount = async () => (JSON.parse((await cli(['keys', 'list', '--json'], as)).stdout) as { data: unknown[] }).data.length;
    const before = await keyCount();
    const runs = await Promise.all(cases.map(([args]) => cli(args, as)));
    runs.forEach((run, i) => {
      expect(run.code, cases[i]![0].join(' ')).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr.split('\n')[0]).toBe(cases[i]![1]);
    });
    expect(await keyCount()).toBe(before); // the refused commands created nothing
  });

  it('--help on every command, and --version', async () => {
    const helps = await Promise.all(
      [[], ['info'], ['keys'], ['keys', 'create'], ['keys', 'list'], ['keys', 'revoke'], ['config'], ['config', 'version']].map((words) =>
        cli([...words, '--help']),
      ),
    );
    for (const [i, words] of ['', 'info', 'keys', 'keys create', 'keys list', 'keys revoke', 'config', 'config version'].entries()) {
      expect(helps[i]!.code, words).toBe(0);
      expect(helps[i]!.stdout.split('\n')[0]).toMatch(new RegExp(`^Usage: gateway-admin ${words}`.trimEnd() + ' \\[options\\]'));
    }
    expect(helps[5]!.stdout.split('\n')[0]).toBe('Usage: gateway-admin keys revoke [options] <id>');
    expect(helps[0]!.stdout).toMatch(/^ {2}info\s+show the running gateway/m);
    expect(helps[0]!.stdout).toContain('--endpoint <url>');
    expect(helps[0]!.stdout).toMatch(/env:\s+GATEWAY_ENDPOINT\)/);
    expect(helps[3]!.stdout).toContain('--budget-cents <int>');
    expect(helps[3]!.stdout).toContain('--cert-file <file>'); // global options shown on subcommands
    expect(helps[3]!.stdout).not.toContain('--client-cert <file>'); // the alias is named in the root help's footer only
    expect(helps[0]!.stdout).toContain('--client-cert and --client-key are other names for --cert-file and --key-file');
    expect(await cli(['--version'])).toEqual({ code: 0, stdout: `${PACKAGE_VERSION}\n`, stderr: '' });
  });
});

describe('gateway-admin hooks list and stats', () => {
  let harness: Harness;
  let receiver: HookReceiver;
  let as: Record<string, string>;
  beforeAll(async () => {
    receiver = await startHookReceiver((call, res) => answerJson(res, 200, call.path.startsWith('/gate') ? { allow: true } : {}));
    harness = await startHarness({
      env: { GATEWAY_ADMIN_TOKEN: TOKEN },
      extraYaml:
        `db_path: ./gateway.db\npools:\n  chat: { members: [ { model: gpt, weight: 2 }, { model: claude } ] }\nhooks:\n` +
        `  - { name: policy, kind: gate, url: "${receiver.url}/gate?key=s3cret", on_error: deny }\n` +
        `  - { name: audit, kind: webhook, url: "${receiver.url}/events", events: [request.failed] }\n`,
    });
    as = { GATEWAY_ENDPOINT: harness.adminUrl, GATEWAY_ADMIN_TOKEN: TOKEN };
    for (const model of ['chat', 'chat', 'nope']) {
      await (
        await fetch(`${harness.url}/v1/chat/completions`, { method: 'POST', body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }) })
      ).arrayBuffer();
    }
    await receiver.waitForCalls(3); // two gate questions, one failure event
  });
  afterAll(async () => {
    await harness.close();
    await receiver.close();
  });

  it("hooks list: a table in config order, the URL's credential masked", async () => {
    const run = await cli(['hooks', 'list'], as);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const rows = run.stdout.trimEnd().split('\n');
    expect(rows[0]).toMatch(/^NAME\s+KIND\s+TARGET\s+EVENTS\s+ON ERROR\s+COUNTERS$/);
    expect(rows[1]).toMatch(
      new RegExp(
        `^policy\\s+gate\\s+${receiver.url.replace(/\./g, '\\.')}/gate\\?key=\\*\\*\\*\\s+request\\.gate\\s+deny\\s+calls 2, allowed 2, denied 0, errors 0$`,
      ),
    );
    expect(rows[2]).toMatch(/^audit\s+webhook\s+\S+\/events\s+request\.failed\s+delivered 1, failed 0, retries 0, dropped 0, queued 0, in flight 0$/);
    expect(run.stdout).not.toContain('s3cret');
  });

  it('hooks list --json: the HookList as the admin API answers it', async () => {
    const run = await cli(['hooks', 'list', '--json'], as);
    expect(run.code).toBe(0);
    const list = JSON.parse(run.stdout) as { data: { name: string; kind: string; gate?: { calls: number }; delivery?: { delivered: number } }[] };
    expect(list.data.map((h) => [h.name, h.kind])).toEqual([
      ['policy', 'gate'],
      ['audit', 'webhook'],
    ]);
    expect(list.data[0]?.gate?.calls).toBe(2);
    expect(list.data[1]?.delivery?.delivered).toBe(1);
  });

  it('stats: requests, latency, tokens, spend, keys, and one row per pool and lane', async () => {
    const run = await cli(['stats'], as);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe(`version:        ${PACKAGE_VERSION}`);
    expect(lines[1]).toBe(`config version: ${harness.gateway.config.configVersion}`);
    expect(run.stdout).toMatch(/^requests:\s+3 total, 2 completed, 1 failed, 0 in flight, 0 failovers, 0 client gone$/m);
    expect(run.stdout).toMatch(/^latency:\s+p50 [\d.]+ ms, p90 [\d.]+ ms, p99 [\d.]+ ms \(last 2 answered requests\)$/m);
    expect(run.stdout).toMatch(/^tokens:\s+input \d+, output \d+, cache read 0, cache write 0, reasoning 0$/m);
    expect(run.stdout).toMatch(/^spent:\s+\$\d+\.\d{2} \(exactly \$\d+\.\d{8}\)$/m);
    expect(run.stdout).toMatch(/^keys:\s+0 \(0 active, 0 revoked\)$/m);
    expect(lines).toContainEqual(expect.stringMatching(/^POOL\s+LANE\s+WEIGHT\s+STATE\s+IN FLIGHT\s+SUCCESSES\s+LANE FAULTS\s+429S\s+TRIPS\s+UNTIL$/));
    expect(lines).toContainEqual(expect.stringMatching(/^chat\s+gpt\s+2\s+closed\s+0\s+\d+\s+0\s+0\s+0$/));
    expect(lines).toContainEqual(expect.stringMatching(/^chat\s+claude\s+1\s+closed\s+0\s+\d+\s+0\s+0\s+0$/));
  });

  it('stats --json: the StatsView; --help for both commands', async () => {
    const run = await cli(['stats', '--json'], as);
    expect(run.code).toBe(0);
    const stats = JSON.parse(run.stdout) as { config_version: string; requests: { total: number }; keys: unknown };
    expect(stats.config_version).toBe(harness.gateway.config.configVersion);
    expect(stats.requests.total).toBe(3);
    expect(stats.keys).toEqual({ total: 0, active: 0, revoked: 0 });
    const [hooksHelp, statsHelp, top] = await Promise.all([cli(['hooks', 'list', '--help']), cli(['stats', '--help']), cli(['--help'])]);
    expect(hooksHelp.stdout.split('\n')[0]).toBe('Usage: gateway-admin hooks list [options]');
    expect(statsHelp.stdout.split('\n')[0]).toBe('Usage: gateway-admin stats [options]');
    expect(top.stdout).toMatch(/^ {2}hooks\s+gate and webhook hooks$/m);
    expect(top.stdout).toMatch(/^ {2}stats\s+show requests, latency percentiles/m);
  });

  it('a wrong token: exit 1 and the usual message', async () => {
    const run = await cli(['stats', '--token', 'wrong'], { GATEWAY_ENDPOINT: harness.adminUrl });
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr: `gateway-admin: the admin plane at ${harness.adminUrl} refused the admin token from --token (401 unauthorized): check the token\n`,
    });
  });
});

describe('gateway-admin over mTLS', () => {
  let tls: TlsFixtures;
  let gateway: RunningGateway;
  let endpoint: string;
  let mtls: string[];
  beforeAll(async () => {
    tls = makeTlsFixtures();
    const dir = mkdtempSync(join(tmpdir(), 'gateway-cli-mtls-'));
    writeFileSync(
      join(dir, 'config.yaml'),
      [
        'listen: 127.0.0.1:0',
        'admin_listen: 127.0.0.1:0',
        'log_level: silent',
        'db_path: ./gateway.db',
        `admin_tls: { cert: ${tls.files.serverCert}, key: ${tls.files.serverKey}, client_ca: ${tls.files.ca} }`,
        'models: { demo: { provider: demo, model: demo-echo } }',
      ].join('\n') + '\n',
    );
    gateway = await startGateway(loadConfigFile(join(dir, 'config.yaml'), { env: { GATEWAY_ADMIN_TOKEN: TOKEN } }), { log: createLogger('silent') });
    endpoint = gateway.adminUrl;
    mtls = ['--endpoint', endpoint, '--token', TOKEN, '--ca-cert', tls.files.ca, '--cert-file', tls.files.clientCert, '--key-file', tls.files.clientKey];
  });
  afterAll(() => gateway.close());

  it('the first flag names, --client-cert and --client-key, still work (aliases), alone or mixed with the new ones', async () => {
    const base = ['--endpoint', endpoint, '--token', TOKEN, '--ca-cert', tls.files.ca];
    for (const pair of [
      ['--client-cert', tls.files.clientCert, '--client-key', tls.files.clientKey],
      ['--client-cert', tls.files.clientCert, '--key-file', tls.files.clientKey],
      ['--cert-file', tls.files.clientCert, '--client-key', tls.files.clientKey],
    ]) {
      const run = await cli([...base, ...pair, 'config', 'version', '--json']);
      expect(run, pair.join(' ')).toMatchObject({ code: 0, stderr: '' });
      expect(JSON.parse(run.stdout)).toMatchObject({ config_version: gateway.config.configVersion });
    }
    // The control: without any client certificate the same call fails.
    expect((await cli([...base, 'config', 'version'])).code).toBe(1);
  });

  it('with --ca-cert, --cert-file and --key-file every command works', async () => {
    expect(endpoint).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const info = await cli([...mtls, 'info', '--json']);
    expect(info).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(info.stdout)).toMatchObject({ version: PACKAGE_VERSION, config_version: gateway.config.configVersion });
    const created = await cli([...mtls, 'keys', 'create', '--budget-cents', '7', '--rpm', '2', '--json']);
    expect(created.code).toBe(0);
    const id = (JSON.parse(created.stdout) as { id: string }).id;
    expect(id).toMatch(KEY_ID);
    expect((await cli([...mtls, 'keys', 'revoke', id])).stdout).toMatch(new RegExp(`^revoked ${id} at `));
    expect((await cli([...mtls, 'config', 'version'])).stdout).toContain(gateway.config.configVersion);
  });

  it('without a client certificate: exit 1, a TLS failure that asks for one', async () => {
    const run = await cli(['--endpoint', endpoint, '--token', TOKEN, '--ca-cert', tls.files.ca, 'info']);
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr: `gateway-admin: TLS failure: the admin plane at ${endpoint} requires a client certificate (mTLS) and closed the connection: pass --cert-file and --key-file\n`,
    });
  });

  it('with a client certificate from a CA the gateway does not trust: exit 1, TLS failure, certificate rejected', async () => {
    const run = await cli([
      '--endpoint',
      endpoint,
      '--token',
      TOKEN,
      '--ca-cert',
      tls.files.ca,
      '--cert-file',
      tls.files.otherCert,
      '--key-file',
      tls.files.otherKey,
      'info',
    ]);
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr: `gateway-admin: TLS failure: the admin plane at ${endpoint} rejected the client certificate ${tls.files.otherCert} and closed the connection: it must be signed by the CA the gateway trusts (admin_tls.client_ca)\n`,
    });
  });

  it('without --ca-cert the server certificate is not trusted: exit 1, TLS failure naming it', async () => {
    const run = await cli(['--endpoint', endpoint, '--token', TOKEN, '--client-cert', tls.files.clientCert, '--client-key', tls.files.clientKey, 'info']);
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr: `gateway-admin: TLS failure: the admin plane's certificate at ${endpoint} is not trusted (self-signed certificate in certificate chain): pass the CA that signed it with --ca-cert <file>\n`,
    });
    const wrongCa = await cli([
      '--endpoint',
      endpoint,
      '--token',
      TOKEN,
      '--ca-cert',
      tls.files.otherCert,
      '--client-cert',
      tls.files.clientCert,
      '--client-key',
      tls.files.clientKey,
      'info',
    ]);
    expect(wrongCa.stderr).toBe(
      `gateway-admin: TLS failure: the admin plane's certificate at ${endpoint} is not trusted (self-signed certificate in certificate chain): it is not signed by the CA in ${tls.files.otherCert}\n`,
    );
  });

  it('--insecure without --ca-cert skips server verification but still needs the client certificate', async () => {
    const withCert = await cli([
      '--endpoint',
      endpoint,
      '--token',
      TOKEN,
      '--insecure',
      '--client-cert',
      tls.files.clientCert,
      '--client-key',
      tls.files.clientKey,
      'config',
      'version',
      '--json',
    ]);
    expect(withCert).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(withCert.stdout)).toMatchObject({ config_version: gateway.config.configVersion });
    const withoutCert = await cli(['--endpoint', endpoint, '--token', TOKEN, '--insecure', 'info']);
    expect(withoutCert.code).toBe(1);
    expect(withoutCert.stderr).toMatch(/^gateway-admin: TLS failure: .* requires a client certificate \(mTLS\)/);
  });

  it('a wrong token over mTLS is still a 401', async () => {
    const run = await cli([
      '--endpoint',
      endpoint,
      '--token',
      'wrong',
      '--ca-cert',
      tls.files.ca,
      '--client-cert',
      tls.files.clientCert,
      '--client-key',
      tls.files.clientKey,
      'info',
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`gateway-admin: the admin plane at ${endpoint} refused the admin token from --token (401 unauthorized): check the token\n`);
  });

  it('plain HTTP to the TLS admin plane, or TLS to a plain HTTP one: a message that says so', async () => {
    const http = endpoint.replace('https:', 'http:');
    const toTls = await cli(['--endpoint', http, '--token', TOKEN, 'info']);
    expect(toTls).toEqual({
      code: 1,
      stdout: '',
      stderr: `gateway-admin: the admin plane at ${http} closed the connection without answering: if it serves HTTPS (admin_tls), use an https:// endpoint\n`,
    });
    const plain = gateway.dataUrl.replace('http:', 'https:'); // the data plane speaks plain HTTP
    const toPlain = await cli(['--endpoint', plain, '--token', TOKEN, '--ca-cert', tls.files.ca, 'info']);
    expect(toPlain).toEqual({
      code: 1,
      stdout: '',
      stderr: `gateway-admin: TLS failure: ${plain} does not speak TLS: use an http:// endpoint (or set admin_tls on the gateway)\n`,
    });
  });

  it('contradictory or incomplete TLS flags: exit 2 before any request', async () => {
    const cases: [string[], string][] = [
      [
        ['--insecure', '--ca-cert', tls.files.ca],
        `gateway-admin: --insecure and --ca-cert contradict each other (--ca-cert verifies the admin plane's certificate, --insecure skips that): pass one of them`,
      ],
      [['--cert-file', tls.files.clientCert], 'gateway-admin: --cert-file needs --key-file (the private key of that certificate)'],
      [['--key-file', tls.files.clientKey], 'gateway-admin: --key-file needs --cert-file (the certificate of that key)'],
      [['--client-cert', tls.files.clientCert], 'gateway-admin: --client-cert needs --key-file (the private key of that certificate)'],
      [
        ['--cert-file', tls.files.clientCert, '--client-cert', tls.files.clientCert, '--key-file', tls.files.clientKey],
        'gateway-admin: --client-cert is another name for --cert-file: pass one of them',
      ],
      [['--ca-cert', join(tls.dir, 'missing.pem')], `gateway-admin: cannot read the --ca-cert file ${join(tls.dir, 'missing.pem')} (ENOENT)`],
      [['--ca-cert', tls.files.clientKey], `gateway-admin: the --ca-cert file ${tls.files.clientKey} is not a PEM certificate (-----BEGIN CERTIFICATE-----)`],
      [
        ['--cert-file', tls.files.clientCert, '--key-file', tls.files.otherKey],
        `gateway-admin: --key-file ${tls.files.otherKey} is not the private key of --cert-file ${tls.files.clientCert}`,
      ],
      [
        ['--client-cert', tls.files.clientCert, '--client-key', tls.files.otherKey],
        `gateway-admin: --client-key ${tls.files.otherKey} is not the private key of --client-cert ${tls.files.clientCert}`,
      ],
    ];
    const runs = await Promise.all(cases.map(([flags]) => cli(['--endpoint', endpoint, '--token', TOKEN, ...flags, 'info'])));
    runs.forEach((run, i) => expect(run, cases[i]![0].join(' ')).toEqual({ code: 2, stdout: '', stderr: `${cases[i]![1]}\n` }));
    const httpWithTls = await cli(['--endpoint', 'http://127.0.0.1:8081', '--ca-cert', tls.files.ca, 'info']);
    expect(httpWithTls).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'gateway-admin: --ca-cert: TLS options need an https:// endpoint, and http://127.0.0.1:8081 is plain HTTP: use https:// in --endpoint (or GATEWAY_ENDPOINT)\n',
    });
  });
});
