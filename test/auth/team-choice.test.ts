// Which team a person's claim puts them in.
import { describe, expect, it } from 'vitest';
import { AuthFailure } from '../../server/auth/auth-failure.ts';
import { chooseTeam } from '../../server/auth/team-choice.ts';
import type { TeamDefaults } from '../../server/config/runtime-config.ts';

const TEAMS = new Map<string, TeamDefaults>([
  ['ml', { name: 'ml', budgetMicrocents: 1n, rpm: 1 }],
  ['research', { name: 'research', budgetMicrocents: null, rpm: null }],
]);
const settings = { teamClaim: 'groups', defaultTeam: undefined };

function refusal(run: () => unknown): AuthFailure {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AuthFailure);
    return error as AuthFailure;
  }
  throw new Error('expected a refusal');
}

describe('chooseTeam', () => {
  it('takes a string claim, or the first configured value of a list', () => {
    expect(chooseTeam('ml', settings, TEAMS).name).toBe('ml');
    expect(chooseTeam(['staff', 'research', 'ml'], settings, TEAMS).name).toBe('research');
  });

  it('falls back to the default team for a missing, empty or unknown claim', () => {
    for (const claim of [undefined, '', [], ['sales'], 42, { team: 'ml' }]) {
      expect(chooseTeam(claim, { ...settings, defaultTeam: 'research' }, TEAMS).name).toBe('research');
    }
  });

  it('refuses with 403 team_not_allowed, naming the claim and the configured teams', () => {
    const missing = refusal(() => chooseTeam(undefined, settings, TEAMS));
    expect(missing).toMatchObject({ status: 403, code: 'team_not_allowed' });
    expect(missing.message).toBe(
      'your sign-in carries no team (claim "groups") and this gateway has no default team: ask your administrator to add you to one of its teams (ml, research)',
    );
    const unknown = refusal(() => chooseTeam(['sales', 'x'.repeat(500)], settings, TEAMS));
    expect(unknown.message).toContain('"sales"');
    expect(unknown.message.length).toBeLessThan(300); // a runaway claim value is cut
  });
});
