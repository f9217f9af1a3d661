// Starts a real gateway (data plane + admin plane on ephemeral loopback ports) in front of the
// scriptable mock upstream. The config is real YAML and the catalog override a real file, so the
// tests go through the same loading path as an operator's deployment.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway, type RunningGateway } from '../../server/app/start-gateway.ts';
import type { IssuerTimings } from '../../server/auth/oidc-issuer.ts';
import { loadConfigSource } from '../../server/config/load-config.ts';
import { createLogger, type Logger } from '../../server/shared/logger.ts';
import type { RequestObserver } from '../../server/observability/request-record.ts';
import type { Clock } from '../../server/shared/clock.ts';
import { startMockUpstream, type MockUpstream, type RecordedRequest } from './mock-upstream.ts';

export const UPSTREAM_OPENAI_KEY = 'sk-upstream-openai-secret';
export const UPSTREAM_ANTHROPIC_KEY = 'sk-ant-upstream-secret';

export interface Harness {
  readonly gateway: RunningGateway;
  readonly upstream: MockUpstream;
  /** The gateway's data plane, e.g. http://127.0.0.1:41234 */
  readonly url: string;
  readonly adminUrl: string;
  /** The most recent request the mock upstream received (throws when there is none). */
  lastRequest(): RecordedRequest;
  close(): Promise<void>;
}

/** Models every harness config has: one per upstream protocol, plus whatever `extraYaml` adds. */
const MODELS = `models:
  gpt: { provider: openai, model: gpt-4.1-mini }
  claude: { provider: anthropic, model: claude-sonnet-4-5, max_tokens: 2048 }
  claude-default-tokens: { provider: anthropic, model: claude-haiku-4-5 }
`;

/**
 * Breaker settings that keep lanes available between tests of one harness (protocol tests should
 * not see each other's upstream faults); routing tests pass their own `breaker` YAML.
 */
const LENIENT_BREAKER =
  'breaker: { consecutive_failures: 1000, min_requests: 1000, rate_limit_cooldown_ms: 0, max_rate_limit_cooldown_ms: 0, config_fault_cooldown_ms: 0 }\n';

export interface HarnessOptions {
  readonly extraYaml?: string;
  /** Lines added under `models:` (indented two spaces), e.g. backup lanes for failover tests. */
  readonly extraModelsYaml?: string;
  readonly env?: Record<string, string>;
  readonly maxRequestBytes?: number;
  /** A `breaker:` line for config.yaml; lenient by default. */
  readonly breakerYaml?: string;
  readonly clock?: Clock;
  /** Governance's wall clock (budget periods, expiry, a rotated secret's grace); Date.now by default. */
  readonly wallClock?: () => number;
  /** Data-plane worker threads; 1 (the main thread serves) unless a test is about workers. */
  readonly workers?: number;
  /** Observers of finished requests (e.g. a RecordCollector). */
  readonly observers?: readonly RequestObserver[];
  /** OIDC discovery and JWKS timings (self-serve keys). */
  readonly oidcTimings?: IssuerTimings;
  /** The gateway's logger (default: silent). */
  readonly log?: Logger;
  /** Lines appended to the catalog override (providers.yaml), e.g. providers pointing at another mock. */
  readonly extraCatalogYaml?: string;
  /**
   * Also the other four protocols' providers (openai-responses, gemini, bedrock, cohere) on the
   * mock upstream, for models in `extraModelsYaml`; keyed with UPSTREAM_OTHER_KEY (Bedrock signs).
   */
  readonly sixProtocols?: boolean;
}

export const UPSTREAM_OTHER_KEY = 'upstream-other-protocols-secret';
const OTHER_PROVIDERS = ['openai-responses', 'gemini', 'bedrock', 'cohere'] as const;

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const upstream = await startMockUpstream();
  const dir = mkdtempSync(join(tmpdir(), 'gateway-test-'));
  const otherCatalog = options.sixProtocols
    ? OTHER_PROVIDERS.map((p) => `${p}: { base_url: ${upstream.url}${p === 'openai-responses' ? '/v1' : ''} }\n`).join('')
    : '';
  const otherKeys = options.sixProtocols
    ? OTHER_PROVIDERS.filter((p) => p !== 'bedrock')
        .map((p) => `  ${p}: { api_key: { env: TEST_UPSTREAM_OTHER_KEY } }\n`)
        .join('')
    : '';
  writeFileSync(
    join(dir, 'providers.yaml'),
    `openai: { base_url: ${upstream.url}/v1 }\nanthropic: { base_url: ${upstream.url} }\n${otherCatalog}${options.extraCatalogYaml ?? ''}`,
  );
  writeFileSync(join(dir, 'anthropic.key'), `${UPSTREAM_ANTHROPIC_KEY}\n`);
  const limits = options.maxRequestBytes === undefined ? '' : `limits: { max_request_bytes: ${options.maxRequestBytes} }\n`;
  writeFileSync(
    join(dir, 'config.yaml'),
    `listen: 127.0.0.1:0
admin_listen: 127.0.0.1:0
catalog: ./providers.yaml
log_level: silent
providers:
  openai: { api_key: { env: TEST_UPSTREAM_OPENAI_KEY } }
  anthropic: { api_key: { file: ./anthropic.key } }
${otherKeys}${MODELS}${options.extraModelsYaml ?? ''}${limits}${options.breakerYaml ?? LENIENT_BREAKER}${options.extraYaml ?? ''}`,
  );
  // Reloads (configControl) load the file the same way: the same environment.
  const loadOptions = {
    env: {
      TEST_UPSTREAM_OPENAI_KEY: UPSTREAM_OPENAI_KEY,
      ...(options.sixProtocols && {
        TEST_UPSTREAM_OTHER_KEY: UPSTREAM_OTHER_KEY,
        AWS_ACCESS_KEY_ID: 'AKIDTESTHARNESS',
        AWS_SECRET_ACCESS_KEY: 'harness-aws-secret',
        AWS_REGION: 'us-east-1',
      }),
      ...options.env,
    },
  };
  const { config, text } = loadConfigSource(join(dir, 'config.yaml'), loadOptions);
  const gateway = await startGateway(config, {
    configText: text,
    loadOptions,
    log: options.log ?? createLogger('silent'),
    validateAdminResponses: true,
    workers: options.workers ?? 1,
    ...(options.clock !== undefined && { clock: options.clock }),
    ...(options.wallClock !== undefined && { wallClock: options.wallClock }),
    ...(options.observers !== undefined && { observers: options.observers }),
    ...(options.oidcTimings !== undefined && { oidcTimings: options.oidcTimings }),
  });
  return harnessOf(gateway, upstream);
}

/** A started gateway and the mock upstream behind it, closed together. */
export function harnessOf(gateway: RunningGateway, upstream: MockUpstream): Harness {
  return {
    gateway,
    upstream,
    url: gateway.dataUrl,
    adminUrl: gateway.adminUrl,
    lastRequest() {
      const last = upstream.requests[upstream.requests.length - 1];
      if (last === undefined) throw new Error('the upstream received no request');
      return last;
    },
    async close() {
      await gateway.close();
      await upstream.close();
    },
  };
}
