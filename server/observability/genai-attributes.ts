import type { Attributes } from '@opentelemetry/api';
import { microcentsToUsdNumber } from '../shared/money.ts';
import type { ProtocolId } from '../ir/index.ts';
import { genAiOperationName, type Operation } from '../ir/operation.ts';
import { PROTOCOLS } from '../protocols/registry.ts';
import { failoverCount, overheadMs, skippedCount, type AttemptRecord, type RequestRecord } from './request-record.ts';

/**
 * `gen_ai.provider.name` (formerly `gen_ai.system`) values of the OpenTelemetry GenAI semantic
 * conventions, by catalog provider: each protocol's first-hand provider as its definition says,
 * then the compatible providers the conventions name; any other goes by its catalog name.
 */
const PROVIDER_NAMES: Readonly<Record<string, string>> = {
  ...Object.fromEntries(PROTOCOLS.map((p) => [p.genAi.catalogProvider, p.genAi.providerName])),
  azure: 'azure.ai.openai',
  deepseek: 'deepseek',
  groq: 'groq',
  mistral: 'mistral_ai',
  xai: 'x_ai',
};

export function genAiProviderName(provider: string): string {
  return PROVIDER_NAMES[provider] ?? provider;
}

/** What the spans need to know of a lane beyond the record: its upstream model and protocol. */
export interface LaneFacts {
  readonly upstreamModel: string;
  readonly protocol: ProtocolId;
}

/**
 * The request span: GenAI attributes for the call as the client made it (the requested name, the
 * answering upstream's model, usage, finish reason), HTTP status, and the gateway's own.
 */
export function requestAttributes(record: RequestRecord): Attributes {
  const attributes: Attributes = {
    'gen_ai.operation.name': genAiOperationName(record.operation),
    'http.request.method': 'POST',
    'http.response.status_code': record.status,
    'gateway.request_id': record.requestId,
    'gateway.config_version': record.configVersion,
    'gateway.ingress': record.ingress,
    'gateway.stream': record.stream,
    'gateway.attempts': record.attempts.length - skippedCount(record),
    'gateway.failover': failoverCount(record) > 0,
    'gateway.latency_ms': record.latencyMs,
    'gateway.upstream_ms': record.upstreamMs,
    'gateway.overhead_ms': overheadMs(record),
  };
  if (record.model !== undefined) {
    attributes['gen_ai.request.model'] = record.model;
    attributes['gateway.model'] = record.model;
  }
  if (record.pool !== undefined) attributes['gateway.pool'] = record.pool;
  if (record.lane !== undefined) attributes['gateway.lane'] = record.lane;
  if (record.provider !== undefined) {
    attributes['gen_ai.provider.name'] = genAiProviderName(record.provider);
    attributes['gen_ai.system'] = genAiProviderName(record.provider);
  }
  if (record.egress !== undefined) attributes['gateway.egress'] = record.egress;
  if (record.upstreamModel !== undefined && record.status < 400) attributes['gen_ai.response.model'] = record.upstreamModel;
  if (record.keyId !== undefined) attributes['gateway.key_id'] = record.keyId;
  if (record.ttfbMs !== undefined) attributes['gateway.ttfb_ms'] = record.ttfbMs;
  if (record.clientGone) attributes['gateway.client_gone'] = true;
  if (record.usage !== null) Object.assign(attributes, usageAttributes(record.usage));
  if (record.finishReason !== undefined) attributes['gen_ai.response.finish_reasons'] = [record.finishReason];
  if (record.costMicrocents !== undefined) attributes['gateway.cost_usd'] = microcentsToUsdNumber(record.costMicrocents);
  if (record.errorKind !== undefined) attributes['error.type'] = record.errorKind;
  if (record.warnings.length > 0) attributes['gateway.warnings'] = record.warnings.map((w) => `${w.kind}=${w.path}`);
  return attributes;
}

/** One upstream attempt: the GenAI call the gateway made to that lane, and how it ended. */
export function attemptAttributes(attempt: AttemptRecord, lane: LaneFacts | undefined, index: number, operation: Operation): Attributes {
  const attributes: Attributes = {
    'gen_ai.operation.name': genAiOperationName(operation),
    'gen_ai.provider.name': genAiProviderName(attempt.provider),
    'gen_ai.system': genAiProviderName(attempt.provider),
    'gateway.lane': attempt.lane,
    'gateway.attempt.index': index,
    'gateway.attempt.outcome': attempt.outcome,
    'gateway.failover': index > 0,
  };
  if (lane !== undefined) {
    attributes['gen_ai.request.model'] = lane.upstreamModel;
    attributes['gateway.egress'] = lane.protocol;
  }
  if (attempt.status !== undefined) attributes['http.response.status_code'] = attempt.status;
  if (attempt.outcome !== 'success') attributes['error.type'] = attempt.outcome;
  return attributes;
}

function usageAttributes(usage: NonNullable<RequestRecord['usage']>): Attributes {
  return {
    'gen_ai.usage.input_tokens': usage.inputTokens,
    'gen_ai.usage.output_tokens': usage.outputTokens,
    ...(usage.cacheReadTokens > 0 && { 'gen_ai.usage.cache_read.input_tokens': usage.cacheReadTokens }),
    ...(usage.cacheWriteTokens > 0 && { 'gen_ai.usage.cache_creation.input_tokens': usage.cacheWriteTokens }),
    ...(usage.reasoningTokens > 0 && { 'gen_ai.usage.reasoning.output_tokens': usage.reasoningTokens }),
  };
}
