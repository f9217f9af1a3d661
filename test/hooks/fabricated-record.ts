// RequestRecords made up for unit tests of observers (the e2e tests get real ones from the gateway).
import type { RequestRecord } from '../../server/observability/request-record.ts';

let next = 0;

export function fabricatedRecord(overrides: Partial<RequestRecord> = {}): RequestRecord {
  next++;
  return {
    requestId: `req_test${String(next).padStart(4, '0')}`,
    configVersion: 'cfg_0123456789abcdef',
    startedAt: Date.UTC(2026, 0, 2, 3, 4, 5, 678),
    keyId: 'key_01JABCDEFGHJKMNPQRSTVWXYZ0',
    model: 'chat',
    pool: 'chat',
    lane: 'claude',
    provider: 'anthropic',
    upstreamModel: 'claude-sonnet-4-5',
    ingress: 'openai',
    egress: 'anthropic',
    operation: 'chat',
    stream: true,
    status: 200,
    clientGone: false,
    usage: { inputTokens: 12, outputTokens: 5, cacheReadTokens: 2, cacheWriteTokens: 0, reasoningTokens: 1 },
    finishReason: 'stop',
    costMicrocents: 1_700n,
    latencyMs: 812.34,
    ttfbMs: 240.06,
    upstreamMs: 790.1,
    clientWaitMs: 0,
    attempts: [
      { lane: 'gpt', provider: 'openai', outcome: 'lane_fault', status: 500, startMs: 1, ms: 20.04 },
      { lane: 'claude', provider: 'anthropic', outcome: 'success', status: 200, startMs: 22, ms: 780 },
    ],
    warnings: [{ kind: 'dropped', path: 'logit_bias' }],
    ...overrides,
  };
}
