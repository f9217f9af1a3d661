// auth.oidc and teams in config.yaml: what they resolve to, and every way they can be wrong,
// reported with file:line:col like the rest of the configuration (and so by gateway --validate).
import { describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../server/config/load-config.ts';
import { configError, tempDir } from '../config/config-fixtures.ts';

const BASE = ['listen: 127.0.0.1:9080', 'models:', '  demo: { provider: demo, model: demo-echo }'];
const GOVERNANCE = ['db_path: ./gateway.db', 'governance: on', 'governance_secret: { env: GOV_SECRET }'];
const AUTH = ['auth:', '  oidc:', '    issuer: https://login.example.com/realms/eng', '    client_id: gateway'];
const TEAMS = ['teams:', '  ml: { child_default: { budget_cents: 5000, rpm: 60 } }', '  "/eng/research": { child_default: {} }'];
const ENV = { GOV_SECRET: 'a-governance-secret', OIDC_SECRET: 'an-oidc-client-secret' };

function load(lines: readonly string[], env: Record<string, string> = ENV) {
  const dir = tempDir();
  const file = dir.write('config.yaml', lines);
  return { file, load: () => loadConfigFile(file, { env }) };
}

describe('auth.oidc and teams', () => {
  it('resolve with their defaults: audiences [client_id], 30 s tolerance, 600 s max age, claim team, scopes openid email profile', () => {
    const config = load([...BASE, ...GOVERNANCE, ...AUTH, ...TEAMS]).load();
    expect(config.auth).toEqual({
      publicUrl: undefined,
      oidc: {
        issuer: 'https://login.example.com/realms/eng',
        clientId: 'gateway',
        clientSecret: undefined,
        audiences: ['gateway'],
        algorithms: undefined,
        clockToleranceSeconds: 30,
        maxTokenAgeSeconds: 600,
        teamClaim: 'team',
        defaultTeam: undefined,
        scopes: ['openid', 'email', 'profile'],
        userinfo: false,
        insecureLoopbackIssuer: false,
      },
    });
    expect(config.teams.get('ml')).toEqual({ name: 'ml', budgetMicrocents: 5_000_000_000n, rpm: 60 });
    expect(config.teams.get('/eng/research')).toEqual({ name: '/eng/research', budgetMicrocents: null, rpm: null });
  });

  it('take every setting: secret reference, audiences, algorithms, times, claim, default team, scopes, userinfo, public_url', () => {
    const config = load([
      ...BASE,
      ...GOVERNANCE,
      'auth:',
      '  public_url: https://llm.example.com/',
      '  oidc:',
      '    issuer: http://127.0.0.1:9999',
      '    client_id: gateway',
      '    client_secret: { env: OIDC_SECRET }',
      '    audiences: [gateway, gateway-cli]',
      '    algorithms: [ES256]',
      '    clock_tolerance_seconds: 5',
      '    max_token_age_seconds: 120',
      '    team_claim: groups',
      '    default_team: ml',
      '    scopes: [openid, groups]',
      '    userinfo: on',
      ...TEAMS,
    ]).load();
    expect(config.auth).toEqual({
      publicUrl: 'https://llm.example.com',
      oidc: {
        issuer: 'http://127.0.0.1:9999',
        clientId: 'gateway',
        clientSecret: 'an-oidc-client-secret',
        audiences: ['gateway', 'gateway-cli'],
        algorithms: ['ES256'],
        clockToleranceSeconds: 5,
        maxTokenAgeSeconds: 120,
        teamClaim: 'groups',
        defaultTeam: 'ml',
        scopes: ['openid', 'groups'],
        userinfo: true,
        insecureLoopbackIssuer: true,
      },
    });
  });

  it('need governance on, db_path, governance_secret and a team; each missing one is named', () => {
    const { file, load: run } = load([...BASE, ...AUTH]);
    const messages = configError(run).problems.map((p) => `${p.path}: ${p.message}`);
    expect(messages).toEqual([
      expect.stringContaining('auth: self-serve keys need governance: on'),
      expect.stringContaining('auth: self-serve keys need db_path'),
      expect.stringContaining('auth: self-serve keys need governance_secret'),
      expect.stringContaining('auth: self-serve keys need at least one team'),
    ]);
    expect(configError(run).message).toContain(`${file}:4:1: auth: self-serve keys need governance: on`);
  });

  it('refuse an http issuer beyond loopback, a default_team that is not a team, an unreadable client secret, HMAC or none algorithms', () => {
    const error = configError(
      load([
        ...BASE,
        ...GOVERNANCE,
        'auth:',
        '  oidc:',
        '    issuer: http://login.example.com',
        '    client_id: gateway',
        '    client_secret: { env: NOT_SET }',
        '    default_team: sales',
        ...TEAMS,
      ]).load,
    );
    expect(error.problems.map((p) => [p.path, p.line])).toEqual([
      ['auth.oidc.default_team', 12],
      ['auth.oidc.issuer', 9],
      ['auth.oidc.client_secret', 11],
    ]);
    expect(error.message).toContain('the issuer must be https');
    expect(error.message).toContain('default_team "sales" is not one of the teams under teams: (ml, /eng/research)');
    expect(error.message).toContain('environment variable NOT_SET is not set');

    for (const alg of ['HS256', 'none']) {
      const bad = configError(load([...BASE, ...GOVERNANCE, ...AUTH, `    algorithms: [${alg}]`, ...TEAMS]).load);
      expect(bad.problems[0]).toMatchObject({ path: 'auth.oidc.algorithms.0', message: expect.stringContaining('must be one of: RS256') });
    }
  });

  it('reject unknown keys and a child_default that is not money or a rate', () => {
    const error = configError(
      load([...BASE, ...GOVERNANCE, ...AUTH, '    team: x', 'teams:', '  ml: { child_default: { budget_cents: -1, rpm: 0, burst: 3 } }']).load,
    );
    expect(error.problems.map((p) => p.path).sort()).toEqual([
      'auth.oidc.team',
      'teams.ml.child_default.budget_cents',
      'teams.ml.child_default.burst',
      'teams.ml.child_default.rpm',
    ]);
  });
});
