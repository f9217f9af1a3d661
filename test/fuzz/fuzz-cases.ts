// Builds one fuzz case from the seeded PRNG: a route (every chat route of the six protocols, the
// operational GETs, unknown paths), a model (same-protocol lane, cross-protocol lane, a pool
// mixing both, an unknown name), stream or not, then mutations of the body, headers, method and path.
import type { ProtocolId } from '../../server/ir/index.ts';
import { PROTOCOL_IDS } from '../../server/protocols/registry.ts';
import { laneModel } from '../support/six-lane-gateway.ts';
import { mutateBody, serialiseBody } from './mutate-body.ts';
import { mutatedPathModel, mutateHeaders, ODD_METHODS, protocolHeaders, UNKNOWN_PATHS, type Headers } from './mutate-request.ts';
import type { Prng } from './prng.ts';
import type { Corpus } from './seed-corpus.ts';

export type RouteKind = 'chat' | 'models' | 'healthz' | 'metrics' | 'unknown';

export interface FuzzCase {
  readonly index: number;
  readonly kind: RouteKind;
  readonly method: string;
  /** Path and query. */
  readonly path: string;
  readonly headers: Headers;
  readonly body: Buffer | undefined;
  /** Whose error shape a 4xx must have; undefined: any of the six (routes outside a protocol). */
  readonly protocol: ProtocolId | undefined;
  readonly stream: boolean;
  readonly seed: string;
  readonly notes: readonly string[];
}

/** The gateway's model names the fuzz config defines (fuzz-gateway.ts). */
export { laneModel };
export const MIXED_POOL = 'mixed-pool';

function chooseModel(protocol: ProtocolId, rng: Prng, notes: string[]): string {
  const roll = rng.next();
  if (roll < 0.35) return laneModel(protocol); // same protocol: the passthrough path
  if (roll < 0.85) return laneModel(rng.pick(PROTOCOL_IDS.filter((p) => p !== protocol)));
  if (roll < 0.95) return MIXED_POOL;
  notes.push('unknown model');
  return rng.pick(['no-such-model', '', 'M-OPENAI', 'm-openai ', 'x'.repeat(2000)]);
}

/** Path for a chat request whose model (for Gemini, Bedrock, Anthropic's path form) is in the path. */
function chatPath(protocol: ProtocolId, segment: string, stream: boolean, rng: Prng): { path: string; pathModel: boolean } {
  switch (protocol) {
    case 'openai':
      return { path: '/v1/chat/completions', pathModel: false };
    case 'responses':
      return { path: '/v1/responses', pathModel: false };
    case 'cohere':
      return { path: '/v2/chat', pathModel: false };
    case 'anthropic':
      return rng.chance(0.1) ? { path: `/${segment}/v1/messages`, pathModel: true } : { path: '/v1/messages', pathModel: false };
    case 'gemini': {
      const version = rng.chance(0.8) ? 'v1beta' : 'v1';
      const method = stream ? 'streamGenerateContent' : 'generateContent';
      const query = stream ? rng.pick(['?alt=sse', '', '?alt=json', '?alt=sse&alt=json']) : '';
      return { path: `/${version}/models/${segment}:${method}${query}`, pathModel: true };
    }
    case 'bedrock':
      return { path: `/model/${segment}/${stream ? 'converse-stream' : 'converse'}`, pathModel: true };
  }
}

function chatCase(index: number, corpus: Corpus, key: string, rng: Prng): FuzzCase {
  const notes: string[] = [];
  const protocol = rng.pick(PROTOCOL_IDS);
  const seed = rng.pick(corpus.seeds[protocol]);
  const stream = rng.chance(0.5);
  const model = chooseModel(protocol, rng, notes);
  // The model's path segment, sometimes one that names nothing or does not even decode.
  const modelInPath = protocol === 'gemini' || protocol === 'bedrock';
  const segment = modelInPath && rng.chance(0.05) ? mutatedPathModel(model, rng, notes) : encodeURIComponent(model);
  const { path, pathModel } = chatPath(protocol, segment, stream, rng);
  const template: Record<string, unknown> = { ...seed.body };
  if (pathModel) delete template.model;
  else template.model = model;
  if (protocol !== 'gemini' && protocol !== 'bedrock') template.stream = stream;
  if (protocol === 'openai' && stream && rng.chance(0.5)) template.stream_options = { include_usage: true };

  const body = rng.chance(0.85) ? mutateBody(template, rng, notes) : serialiseBody(template);
  const headers = protocolHeaders(protocol, key);
  if (rng.chance(0.2)) mutateHeaders(headers, key, rng, notes);
  let method = 'POST';
  if (rng.chance(0.04)) {
    method = rng.pick(ODD_METHODS);
    notes.push(`method ${method}`);
  }
  if (notes.length === 0) notes.push('unmutated');
  // Another method than POST is answered outside the protocol route: any protocol's shape will do
  // (on a path any client may call, the gateway guesses from the headers).
  const shape = method === 'POST' ? protocol : undefined;
  return {
    index,
    kind: 'chat',
    method,
    path,
    headers,
    body: method === 'GET' || method === 'HEAD' ? undefined : body,
    protocol: shape,
    stream,
    seed: seed.source,
    notes,
  };
}

function operationalCase(index: number, kind: Exclude<RouteKind, 'chat' | 'unknown'>, key: string, rng: Prng): FuzzCase {
  const notes: string[] = [];
  const headers = protocolHeaders(rng.pick(PROTOCOL_IDS), key);
  if (rng.chance(0.4)) mutateHeaders(headers, key, rng, notes);
  const method = rng.chance(0.8) ? 'GET' : rng.pick(['POST', ...ODD_METHODS]);
  const path =
    { models: '/v1/models', healthz: '/healthz', metrics: '/metrics' }[kind] +
    (rng.chance(0.1) ? rng.pick(['?limit=-1', '?%zz', '?x=' + 'y'.repeat(3000)]) : '');
  const body = method === 'GET' || method === 'HEAD' ? undefined : Buffer.from(rng.pick(['', '{}', '{"model":', 'x'.repeat(10_000)]));
  if (method !== 'GET') notes.push(`method ${method}`);
  return { index, kind, method, path, headers, body, protocol: undefined, stream: false, seed: kind, notes };
}

function unknownCase(index: number, corpus: Corpus, key: string, rng: Prng): FuzzCase {
  const notes: string[] = [];
  const protocol = rng.pick(PROTOCOL_IDS);
  const headers = protocolHeaders(protocol, key);
  if (rng.chance(0.3)) mutateHeaders(headers, key, rng, notes);
  const method = rng.chance(0.6) ? 'POST' : rng.pick(ODD_METHODS);
  const body =
    method === 'GET' || method === 'HEAD'
      ? undefined
      : rng.chance(0.5)
        ? serialiseBody(rng.pick(corpus.seeds[protocol]).body)
        : mutateBody(rng.pick(corpus.seeds[protocol]).body, rng, notes);
  return { index, kind: 'unknown', method, path: rng.pick(UNKNOWN_PATHS), headers, body, protocol: undefined, stream: false, seed: 'unknown route', notes };
}

/** The index-th case of a run: chat routes most of the time, the other routes the rest. */
export function buildCase(index: number, corpus: Corpus, key: string, rng: Prng): FuzzCase {
  const roll = rng.next();
  if (roll < 0.82) return chatCase(index, corpus, key, rng);
  if (roll < 0.86) return operationalCase(index, 'models', key, rng);
  if (roll < 0.89) return operationalCase(index, 'healthz', key, rng);
  if (roll < 0.91) return operationalCase(index, 'metrics', key, rng);
  return unknownCase(index, corpus, key, rng);
}

/** One line that says what a case was, for a failure report. */
export function describeCase(c: FuzzCase): string {
  return `#${c.index} ${c.method} ${c.path.slice(0, 120)}${c.stream ? ' (stream)' : ''} seed=${c.seed} body=${c.body?.length ?? 0}B [${c.notes.join('; ')}]`;
}
