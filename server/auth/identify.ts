import * as oidc from 'openid-client';
import type { TeamDefaults } from '../config/runtime-config.ts';
import { AuthFailure, invalidToken } from './auth-failure.ts';
import type { OidcIssuer } from './oidc-issuer.ts';
import { chooseTeam } from './team-choice.ts';
import { verifyIdToken } from './token-verifier.ts';

/** The tokens a person presents: posted to /auth/token, or returned by the code exchange. */
export interface PresentedTokens {
  readonly idToken: string;
  readonly accessToken?: string | undefined;
}

/** Who signed in, and which team's child_default their key gets. Plain data. */
export interface Person {
  readonly issuer: string;
  readonly subject: string;
  readonly team: TeamDefaults;
  /** How the admin API names the key's owner: email, else username, else name, else sub. */
  readonly label: string;
}

/**
 * Verifies the ID token and finds the team: in the ID token's claims, or, with `userinfo: on`, in
 * the issuer's UserInfo answer for the access token (whose sub must be the ID token's).
 */
export async function identify(tokens: PresentedTokens, issuer: OidcIssuer, teams: ReadonlyMap<string, TeamDefaults>): Promise<Person> {
  const settings = issuer.settings;
  const discovered = await issuer.discover();
  const verified = await verifyIdToken(tokens.idToken, discovered, settings);
  let claims: Record<string, unknown> = verified.claims;
  if (settings.userinfo) {
    if (tokens.accessToken === undefined) {
      throw new AuthFailure(
        400,
        'invalid_request',
        "access_token is required beside id_token: this gateway reads your team from the issuer's UserInfo endpoint",
      );
    }
    claims = { ...claims, ...(await userInfo(discovered.client, tokens.accessToken, verified.subject)) };
  }
  const team = chooseTeam(claims[settings.teamClaim], settings, teams);
  return { issuer: verified.issuer, subject: verified.subject, team, label: label(claims, verified.subject) };
}

async function userInfo(client: oidc.Configuration, accessToken: string, subject: string): Promise<Record<string, unknown>> {
  try {
    return await oidc.fetchUserInfo(client, accessToken, subject);
  } catch (error) {
    if (isNetworkFailure(error)) {
      throw new AuthFailure(
        503,
        'issuer_unavailable',
        'the sign-in service (OIDC issuer) is not available: its UserInfo endpoint could not be reached; try again shortly',
        { retryAfterSeconds: 5, cause: error },
      );
    }
    throw invalidToken('access_token', "the issuer's UserInfo endpoint refused the access token, or answered for another person", error);
  }
}

function isNetworkFailure(error: unknown): boolean {
  for (let e = error; e instanceof Error; e = e.cause) {
    if (e.name === 'TimeoutError' || e.name === 'AbortError' || (e instanceof TypeError && /fetch failed/i.test(e.message))) return true;
  }
  return false;
}

function label(claims: Record<string, unknown>, subject: string): string {
  for (const name of ['email', 'preferred_username', 'name']) {
    const value = claims[name];
    if (typeof value === 'string' && value.trim() !== '') return value.trim().slice(0, 200);
  }
  return subject;
}
