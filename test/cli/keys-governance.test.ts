// The real `gateway-admin` CLI in a child process against a real gateway (SQLite store,
// governance on, teams in its config.yaml) for the commands of issue 18: keys create with any
// subset of fields, keys show, keys update (none clears), keys rotate, keys usage, usage and teams
// list, each as a table and with --json, and the usage errors that name the flag. Spend comes from
// real requests through the data plane with the OpenAI SDK.
import OpenAI from 'openai';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { components } from '../../generated/admin-api.ts';
import { startHarness, type Harness } from '../support/gateway-harness.ts';
import { runToExit, type Exit } from '../support/run-to-exit.ts';

type KeyCreated = components['schemas']['KeyCreated'];
type KeyView = components['schemas']['KeyView'];
type UsageReport = components['schemas']['UsageReport'];
type TeamList = components['schemas']['TeamList'];

const ROOT = new URL('../../', import.meta.url).pathname;
const NODE = join(ROOT, 'node_modules/.bin/node');
const CLI = join(ROOT, 'cli/gateway-admin.ts');
const TOKEN = 'cli-governance-admin-token';

describe('gateway-admin: key limits, rotation, usage and teams', () => {
  let harness: Harness;
  let as: Record<string, string>;
  const cli = (args: readonly string[]): Promise<Exit> => runToExit(NODE, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', ...as } });
  const json = async <T>(args: readonly string[]): Promise<T> => {
    const run = await cli([...args, '--json']);
    expect(run, args.join(' ')).toMatchObject({ code: 0, stderr: '' });
    return JSON.parse(run.stdout) as T;
  };

  beforeAll(async () => {
    harness = await startHarness({
      env: { GATEWAY_ADMIN_TOKEN: TOKEN },
      extraYaml: [
        'db_path: ./gateway.db',
        'governance: on',
        'pools:',
        '  chat: { members: [ { model: gpt }, { model: claude } ] }',
        'teams:',
        '  research: { child_default: { budget_cents: 100, rpm: 10 } }',
        '  platform: { child_default: { budget_cents: 100, rpm: 10 } }',
        '',
      ].join('\n'),
    });
    as = { GATEWAY_ENDPOINT: harness.adminUrl, GATEWAY_ADMIN_TOKEN: TOKEN };
  });
  afterAll(() => harness.close());

  it('keys create with every field, shown back as text and as JSON', async () => {
    const run = await cli([
      'keys',
      'create',
      '--name',
      'research bot',
      '--owner',
      'ana',
      '--budget-cents',
      '5000',
      '--budget-period',
      'monthly',
      '--rpm',
      '60',
      '--tpm',
      '100000',
      '--models',
      'gpt, chat',
      '--expires-at',
      '2099-12-31',
      '--team',
      'research',
      '--metadata',
      'cost_centre=4711',
      '--metadata',
      'note=a=b',
    ]);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    for (const line of [
      /^budget:\s+\$50\.00 monthly$/m,
      /^spent this period:\s+\$0\.00 \(exactly \$0\.00\)$/m,
      /^remaining:\s+\$50\.00 \(exactly \$50\.00\)$/m,
      /^rpm:\s+60$/m,
      /^tpm:\s+100000$/m,
      /^models:\s+gpt, chat$/m,
      /^team:\s+research$/m,
      /^expires:\s+2099-12-31T00:00:00\.000Z$/m,
      /^metadata:\s+cost_centre=4711, note=a=b$/m,
      /^status:\s+active$/m,
      /^secret:\s+gwk_[A-Za-z0-9_-]{43}$/m,
    ]) {
      expect(run.stdout).toMatch(line);
    }
    const id = /^id:\s+(key_\S+)$/m.exec(run.stdout)![1]!;
    const shown = await json<KeyView>(['keys', 'show', id]);
    expect(shown).toMatchObject({
      budget_cents: 5000,
      budget_period: 'monthly',
      tpm: 100_000,
      models: ['gpt', 'chat'],
      expires_at: '2099-12-31T00:00:00.000Z',
      team: 'research',
      metadata: { cost_centre: '4711', note: 'a=b' },
    });
    expect((await cli(['keys', 'show', id])).stdout).not.toMatch(/secret:/);
  });

  it('keys create with any one field, or none; --expires-in counts from now', async () => {
    const before = Date.now();
    const lasting = await json<KeyCreated>(['keys', 'create', '--expires-in', '12h']);
    const expires = Date.parse(lasting.expires_at!);
    expect(expires).toBeGreaterThanOrEqual(before + 12 * 3_600_000);
    expect(expires).toBeLessThan(Date.now() + 12 * 3_600_000 + 1000);
    expect(await json<KeyCreated>(['keys', 'create', '--tpm', '5'])).toMatchObject({ tpm: 5, rpm: null, budget_cents: null });
    expect(await json<KeyCreated>(['keys', 'create', '--team', 'platform'])).toMatchObject({ team: 'platform', budget_cents: null });
    expect(await json<KeyCreated>(['keys', 'create'])).toMatchObject({
      name: null,
      budget_cents: null,
      rpm: null,
      tpm: null,
      models: null,
      team: null,
      metadata: {},
    });
  });

  it('keys update changes what is given, leaves the rest, and none clears', async () => {
    const key = await json<KeyCreated>(['keys', 'create', '--name', 'temp', '--budget-cents', '100', '--rpm', '5', '--models', 'gpt', '--metadata', 'a=1']);
    const raised = await json<KeyView>(['keys', 'update', key.id, '--budget-cents', '900', '--budget-period', 'daily', '--team', 'platform']);
    expect(raised).toMatchObject({ name: 'temp', budget_cents: 900, budget_period: 'daily', rpm: 5, models: ['gpt'], team: 'platform', metadata: { a: '1' } });
    const cleared = await json<KeyView>(['keys', 'update', key.id, '--rpm', 'none', '--models', 'none', '--metadata', 'none', '--name', 'none']);
    expect(cleared).toMatchObject({ name: null, budget_cents: 900, rpm: null, models: null, metadata: {} });
    const text = await cli(['keys', 'update', key.id, '--expires-at', '2001-01-01T00:00:00Z']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^status:\s+expired$/m);
    expect((await cli(['keys', 'list'])).stdout).toMatch(new RegExp(`^${key.id} .* expired$`, 'm'));
  });

  it('keys rotate: a new secret for the same key; the old one works during the grace', async () => {
    const key = await json<KeyCreated>(['keys', 'create', '--name', 'rolling']);
    const models = (apiKey: string) => fetch(`${harness.url}/v1/models`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect((await models(key.secret)).status).toBe(200);
    const text = await cli(['keys', 'rotate', key.id, '--grace-seconds', '600']);
    expect(text.code).toBe(0);
    const secret = /^secret:\s+(gwk_\S+)$/m.exec(text.stdout)![1]!;
    expect(text.stdout).toMatch(/The old secret works until \d{4}-[\d-]+T[\d:.]+Z\.$/m);
    expect(secret).not.toBe(key.secret);
    expect((await models(key.secret)).status).toBe(200);
    expect((await models(secret)).status).toBe(200);
    const again = await json<KeyCreated>(['keys', 'rotate', key.id]);
    expect(again.previous_secret_until).toBeNull();
    expect((await models(secret)).status).toBe(401);
    expect((await models(again.secret)).status).toBe(200);
    await cli(['keys', 'revoke', key.id]);
    const revoked = await cli(['keys', 'rotate', key.id]);
    expect(revoked).toMatchObject({ code: 1, stdout: '' });
    expect(revoked.stderr).toMatch(/^gateway-admin: .*\(HTTP 409 key_revoked\)\n$/);
  });

  it('usage and keys usage: the ledger grouped, as a table and as JSON', async () => {
    const key = await json<KeyCreated>(['keys', 'create', '--name', 'spender', '--team', 'research']);
    const openai = new OpenAI({ apiKey: key.secret, baseURL: `${harness.url}/v1`, maxRetries: 0 });
    for (let i = 0; i < 3; i++) await openai.chat.completions.create({ model: 'gpt', messages: [{ role: 'user', content: `hello ${i}` }] });
    const mine = await json<UsageReport>(['keys', 'usage', key.id, '--group-by', 'day,model']);
    expect(mine.group_by).toEqual(['day', 'model']);
    expect(mine.rows).toHaveLength(1);
    expect(mine.rows[0]).toMatchObject({ day: new Date().toISOString().slice(0, 10), requests: 3 });
    expect(mine.total.requests).toBe(3);
    expect(mine.total.input_tokens).toBeGreaterThan(0);
    const view = await json<KeyView>(['keys', 'show', key.id]);
    expect(mine.total.cost_usd).toBe(view.lifetime_spent_usd);

    const byTeam = await json<UsageReport>(['usage', '--group-by', 'team,key', '--from', new Date(Date.now() - 86_400_000).toISOString()]);
    expect(byTeam.rows.find((r) => r.key_id === key.id)).toMatchObject({ team: 'research', key_name: 'spender', requests: 3 });
    const table = await cli(['usage', '--group-by', 'key']);
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('usage from the first request to now');
    expect(lines[1]).toMatch(/^KEY\s+NAME\s+REQUESTS\s+INPUT\s+OUTPUT\s+CACHE READ\s+CACHE WRITE\s+COST$/);
    expect(lines.find((l) => l.startsWith(key.id))).toMatch(new RegExp(`^${key.id}\\s+spender\\s+3\\s+\\d+\\s+\\d+\\s+0\\s+0\\s+\\$\\d+\\.\\d+$`));
    expect(lines.at(-1)).toMatch(/^total\s+\d+/);
    const empty = await cli(['usage', '--to', '2000-01-01']);
    expect(empty.stdout).toMatch(/^0\s+0\s+0\s+0\s+0\s+\$0\.00$/m);
  });

  it('teams list: configured teams with their keys, as a table and as JSON', async () => {
    const list = await json<TeamList>(['teams', 'list']);
    expect(list.data.map((t) => t.name)).toEqual(expect.arrayContaining(['platform', 'research']));
    expect(list.data.every((t) => t.configured)).toBe(true);
    const research = list.data.find((t) => t.name === 'research')!;
    expect(research.keys).toBeGreaterThanOrEqual(2);
    const table = await cli(['teams', 'list']);
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^TEAM\s+BUDGET\s+PERIOD\s+SPENT\s+LIFETIME\s+IN FLIGHT\s+REMAINING\s+KEYS\s+CONFIGURED$/);
    expect(table.stdout).toMatch(new RegExp(`^research\\s+.*\\s${research.keys}\\s+yes$`, 'm'));
  });

  it('what the gateway refuses (an unknown team or model, a past expiry): exit 1 with its reason', async () => {
    const cases: [string[], RegExp][] = [
      [['keys', 'create', '--team', 'sales'], /"sales" is not a team of the running configuration \(teams: "research", "platform"\)/],
      [['keys', 'create', '--models', 'gpt,gpt-9'], /"gpt-9" is neither a model nor a pool/],
      [['keys', 'create', '--expires-at', '2001-01-01'], /body\.expires_at: .* is not in the future/],
      [['keys', 'update', 'key_00000000000000000000000000', '--rpm', '5'], /no key with id/],
      [['keys', 'usage', 'key_00000000000000000000000000'], /no key with id/],
      [['usage', '--group-by', 'week'], /query\.group_by: "week" is not one of day, model, key, team/],
    ];
    for (const [args, message] of cases) {
      const run = await cli(args);
      expect(run.code, args.join(' ')).toBe(1);
      expect(run.stderr, args.join(' ')).toMatch(message);
    }
  });

  it('wrong flags: exit 2 naming the flag, nothing sent', async () => {
    const cases: [string[], string][] = [
      [
        ['keys', 'create', '--budget-period', 'yearly'],
        `option '--budget-period <period>' argument 'yearly' is invalid. expected one of daily, weekly, monthly`,
      ],
      [['keys', 'create', '--tpm', '0'], `option '--tpm <int>' argument '0' is invalid. must be from 1 to 1000000000, got 0`],
      [['keys', 'create', '--expires-in', '30 days'], `option '--expires-in <duration>' argument '30 days' is invalid. expected a positive duration`],
      [['keys', 'create', '--expires-at', 'friday'], `option '--expires-at <time>' argument 'friday' is invalid. expected a date (2026-12-31)`],
      [['keys', 'create', '--expires-at', '2099-01-01', '--expires-in', '1d'], '--expires-at and --expires-in both say when the key expires'],
      [['keys', 'create', '--metadata', 'novalue'], `option '--metadata <name=value>' argument 'novalue' is invalid. expected name=value`],
      [['keys', 'create', '--models', 'gpt,,claude'], `option '--models <names>' argument 'gpt,,claude' is invalid.`],
      [['keys', 'create', '--rpm', 'none'], `option '--rpm <int>' argument 'none' is invalid.`],
      [['keys', 'update', 'key_x'], 'nothing to change: give at least one field flag'],
      [
        ['keys', 'update', 'key_x', '--metadata', 'a=1', '--metadata', 'none'],
        `option '--metadata <name=value>' argument 'none' is invalid. none removes every label: give it alone`,
      ],
      [['keys', 'rotate', 'key_x', '--grace-seconds', '2592001'], `option '--grace-seconds <int>' argument '2592001' is invalid. must be from 0 to 2592000`],
      [['usage', '--from', 'yesterday'], `option '--from <time>' argument 'yesterday' is invalid.`],
    ];
    const before = (await json<{ data: unknown[] }>(['keys', 'list'])).data.length;
    for (const [args, message] of cases) {
      const run = await cli(args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr.split('\n')[0], args.join(' ')).toContain(`gateway-admin: ${message}`);
    }
    expect((await json<{ data: unknown[] }>(['keys', 'list'])).data).toHaveLength(before);
  });
});
