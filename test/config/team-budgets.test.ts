// teams.<name>.budget_cents and budget_period: resolved for governance (setTeams), a team with a
// budget and no child_default issues no self-serve keys, and a reload that changes only budgets is
// live while one that changes child_default still needs a restart.
import { describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../server/config/load-config.ts';
import { restartProblems } from '../../server/config/restart-settings.ts';
import { configError, tempDir } from './config-fixtures.ts';

const BASE = ['log_level: silent', 'models:', '  demo: { provider: demo, model: demo-echo }', 'db_path: ./gateway.db', 'governance: on'];
const AUTH = ['governance_secret: { env: GOV_SECRET }', 'auth:', '  oidc:', '    issuer: https://login.example.com/realms/eng', '    client_id: gateway'];
const ENV = { GOV_SECRET: 'a-governance-secret' };

// One directory: db_path resolves against it, and a different store is a restart of its own.
const dir = tempDir();

function load(lines: readonly string[]) {
  const text = `${lines.join('\n')}\n`;
  const file = dir.write('config.yaml', text);
  return { file, text, load: () => loadConfigFile(file, { env: ENV }) };
}

describe('team budgets in config.yaml', () => {
  it('resolve in file order, in microcents, a team without a budget included with nulls', () => {
    const config = load([
      ...BASE,
      'teams:',
      '  ml: { budget_cents: 5000, budget_period: monthly }',
      '  ops: { budget_cents: 250 }',
      '  interns: {}',
      '  research: { child_default: { budget_cents: 100 }, budget_cents: 900, budget_period: weekly }',
    ]).load();
    expect(config.teamBudgets).toEqual([
      { name: 'ml', budgetMicrocents: 5_000_000_000n, budgetPeriod: 'monthly' },
      { name: 'ops', budgetMicrocents: 250_000_000n, budgetPeriod: null },
      { name: 'interns', budgetMicrocents: null, budgetPeriod: null },
      { name: 'research', budgetMicrocents: 900_000_000n, budgetPeriod: 'weekly' },
    ]);
    // Only a team with child_default issues self-serve keys.
    expect([...config.teams.keys()]).toEqual(['research']);
  });

  it('refuse a period without a budget, an unknown period and a negative budget, each at its team', () => {
    const error = configError(
      load([...BASE, 'teams:', '  a: { budget_period: daily }', '  b: { budget_cents: 10, budget_period: yearly }', '  c: { budget_cents: -1 }']).load,
    );
    expect(error.problems.map((p) => `${p.path}: ${p.message}`).sort()).toEqual([
      expect.stringMatching(/^teams\.a: .*budget_cents/),
      'teams.b.budget_period: must be one of: daily, weekly, monthly',
      expect.stringMatching(/^teams\.c\.budget_cents: must be >= 0/),
    ]);
  });

  it('self-serve needs a team with child_default, and a default_team that has one', () => {
    const none = configError(load([...BASE, ...AUTH, 'teams:', '  ml: { budget_cents: 5000 }']).load);
    expect(none.message).toContain('self-serve keys need at least one team under teams: with a child_default');
    const budgetOnly = configError(
      load([...BASE, ...AUTH, '    default_team: ml', 'teams:', '  ml: { budget_cents: 5000 }', '  eng: { child_default: { rpm: 10 } }']).load,
    );
    expect(budgetOnly.problems).toEqual([
      expect.objectContaining({
        path: 'auth.oidc.default_team',
        message: expect.stringContaining('default_team "ml" has no child_default, so it issues no self-serve keys'),
      }),
    ]);
  });

  it('a reload that changes only budgets (or adds a budget-only team) is live; one that changes child_default needs a restart', () => {
    const running = load([...BASE, ...AUTH, 'teams:', '  eng: { child_default: { rpm: 10 }, budget_cents: 100 }']).load();
    const budgets = load([
      ...BASE,
      ...AUTH,
      'teams:',
      '  eng: { child_default: { rpm: 10 }, budget_cents: 900, budget_period: daily }',
      '  ops: { budget_cents: 5 }',
    ]);
    expect(restartProblems(running, budgets.load(), budgets.text)).toEqual([]);
    const defaults = load([...BASE, ...AUTH, 'teams:', '  eng: { child_default: { rpm: 20 }, budget_cents: 100 }']);
    expect(restartProblems(running, defaults.load(), defaults.text)).toEqual([
      expect.objectContaining({ path: 'teams', message: expect.stringContaining('needs a restart') }),
    ]);
  });
});
