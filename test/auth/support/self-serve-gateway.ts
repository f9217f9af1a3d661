// A gateway with self-serve keys on, in front of the mock upstream, signed into by a real OIDC
// issuer on loopback: the setup every /auth/token test shares.
import type { IssuerTimings } from '../../../server/auth/oidc-issuer.ts';
import { startHarness, type Harness } from '../../support/gateway-harness.ts';
import { CLI_CLIENT_ID, GATEWAY_CLIENT_ID, GATEWAY_CLIENT_SECRET, startTestIssuer, type TestAccount, type TestIssuer } from './test-issuer.ts';

export const GOVERNANCE_SECRET = 'governance-secret-for-self-serve-tests';

/** alice is in ml, bob in research (as one of his groups), carol has no team, dave's team is not configured. */
export const ACCOUNTS: Record<string, TestAccount> = {
  alice: { team: 'ml' },
  bob: { team: ['staff', 'research'] },
  carol: {},
  dave: { team: 'marketing' },
  erin: { team: 'ml', teamOnlyInUserinfo: true },
};

export const TEAMS_YAML = `teams:
  ml: { child_default: { budget_cents: 500, rpm: 30 } }
  research: { child_default: { budget_cents: 120 } }
`;

export interface SelfServeGateway {
  readonly h: Harness;
  readonly issuer: TestIssuer;
  /** POST /auth/token with a JSON body. */
  exchange(body: unknown, headers?: Record<string, string>): Promise<Response>;
  close(): Promise<void>;
}

export interface SelfServeGatewayOptions {
  /** Lines added under auth.oidc (indented four spaces). */
  readonly oidcYaml?: string;
  readonly teamsYaml?: string;
  readonly timings?: IssuerTimings;
  /** auth.public_url */
  readonly publicUrl?: string;
  /** An issuer already running (shared by several gateways). */
  readonly issuer?: TestIssuer;
  /** Data-plane workers (1 unless a test is about workers). */
  readonly workers?: number;
  /** Governance's wall clock (budget periods); Date.now by default. */
  readonly wallClock?: () => number;
}

export async function startSelfServeGateway(options: SelfServeGatewayOptions = {}): Promise<SelfServeGateway> {
  const issuer = options.issuer ?? (await startTestIssuer(ACCOUNTS));
  const h = await startHarness({
    extraYaml: `db_path: ./gateway.db
governance: on
governance_secret: { env: TEST_GOVERNANCE_SECRET }
auth:
${options.publicUrl === undefined ? '' : `  public_url: ${options.publicUrl}\n`}  oidc:
    issuer: ${issuer.url}
    client_id: ${GATEWAY_CLIENT_ID}
    client_secret: { env: TEST_OIDC_CLIENT_SECRET }
    audiences: [${GATEWAY_CLIENT_ID}, ${CLI_CLIENT_ID}]
    scopes: [email, profile, team]
${options.oidcYaml ?? ''}${options.teamsYaml ?? TEAMS_YAML}`,
    env: { TEST_GOVERNANCE_SECRET: GOVERNANCE_SECRET, TEST_OIDC_CLIENT_SECRET: GATEWAY_CLIENT_SECRET },
    oidcTimings: { retryDelayMs: 0, ...options.timings },
    ...(options.workers !== undefined && { workers: options.workers }),
    ...(options.wallClock !== undefined && { wallClock: options.wallClock }),
  });
  if (options.issuer === undefined) await issuer.register(`${h.url}/auth/token`);
  return {
    h,
    issuer,
    exchange: (body, headers = {}) =>
      fetch(`${h.url}/auth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
    async close() {
      await h.close();
      if (options.issuer === undefined) await issuer.close();
    },
  };
}

/** The JSON answer of a successful POST /auth/token. */
export interface TokenAnswer {
  key: string;
  key_id: string;
  prefix: string;
  team: string;
  generation: number;
  created: boolean;
  budget_cents: number | null;
  spent_cents: number;
  remaining_cents: number | null;
  rpm: number | null;
  base_url: string;
  openai_base_url: string;
}

export interface ErrorAnswer {
  error: { code: string; reason?: string; message: string };
}
