import type { OidcSettings, TeamDefaults } from '../config/runtime-config.ts';
import { AuthFailure } from './auth-failure.ts';

/** Claim values are shown back to the person; a runaway one is cut. */
const SHOWN_VALUES = 5;
const SHOWN_LENGTH = 80;

/**
 * The person's team, from the configured claim: a string names one team; an array (a groups
 * claim) gives the first value that is a configured team. A claim that is missing or names no
 * configured team gets the default team when one is set, and a 403 that says why otherwise.
 */
export function chooseTeam(claim: unknown, settings: Pick<OidcSettings, 'teamClaim' | 'defaultTeam'>, teams: ReadonlyMap<string, TeamDefaults>): TeamDefaults {
  const values = (Array.isArray(claim) ? claim : [claim]).filter((value): value is string => typeof value === 'string' && value !== '');
  for (const value of values) {
    const team = teams.get(value);
    if (team !== undefined) return team;
  }
  const fallback = settings.defaultTeam === undefined ? undefined : teams.get(settings.defaultTeam);
  if (fallback !== undefined) return fallback;
  const configured = [...teams.keys()].join(', ');
  if (values.length === 0) {
    throw new AuthFailure(
      403,
      'team_not_allowed',
      `your sign-in carries no team (claim "${settings.teamClaim}") and this gateway has no default team: ask your administrator to add you to one of its teams (${configured})`,
    );
  }
  const shown = values
    .slice(0, SHOWN_VALUES)
    .map((value) => JSON.stringify(value.slice(0, SHOWN_LENGTH)))
    .join(', ');
  throw new AuthFailure(
    403,
    'team_not_allowed',
    `your team (claim "${settings.teamClaim}": ${shown}) has no self-serve keys on this gateway: the teams that do are ${configured}`,
  );
}
