// Embeddings section: `POST /v1/embeddings` under autocannon at the first connection count, repeats
// interleaved: the mock directly, through the minimal proxy, and through the gateway same protocol
// (OpenAI client, OpenAI lane: bytes forwarded, usage read from the answer's tail) and translated
// (OpenAI client, Cohere lane: decoded, re-encoded as base64 floats). The request is a RAG-sized
// batch: 16 passages of about 60 words, 1024 dimensions asked (about 330 KB of JSON answered).
import type { ClientRequest } from './client-requests.ts';
import type { Fleet, TargetName } from './fleet.ts';
import { EMBEDDING_UPSTREAM_MODEL, embeddingGatewayModel } from './gateway-config.ts';
import { measureInterleaved, type LoadSummary } from './load-runner.ts';
import type { Settings } from './settings.ts';
import { cell, textTable } from './text-table.ts';

export interface EmbeddingsRow extends LoadSummary {
  readonly name: string;
  readonly connections: number;
}

interface EmbeddingsScenario {
  readonly name: string;
  readonly target: TargetName;
  readonly model: string;
  readonly encoding: 'float' | 'base64';
}

const SCENARIOS: readonly EmbeddingsScenario[] = [
  { name: 'direct openai embeddings', target: 'direct', model: EMBEDDING_UPSTREAM_MODEL, encoding: 'float' },
  { name: 'minimal proxy openai embeddings', target: 'proxy', model: EMBEDDING_UPSTREAM_MODEL, encoding: 'float' },
  { name: 'gateway openai->openai embeddings', target: 'gateway', model: embeddingGatewayModel('openai'), encoding: 'float' },
  { name: 'gateway openai->cohere embeddings (base64)', target: 'gateway', model: embeddingGatewayModel('cohere'), encoding: 'base64' },
];

const PASSAGE =
  'The quick brown fox jumps over the lazy dog while the gateway forwards embeddings requests to the upstream and reads back the vectors it returns for each passage of text in the batch. ';

/** The section's request (also `make profile`'s, PROFILE_SCENARIO='openai->openai embeddings'). */
export function embeddingsRequest(s: Pick<EmbeddingsScenario, 'model' | 'encoding'>, apiKey: string): ClientRequest {
  const input = Array.from({ length: 16 }, (_, i) => `${i}: ${PASSAGE.repeat(2)}`);
  return {
    path: '/v1/embeddings',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
    body: JSON.stringify({ model: s.model, input, encoding_format: s.encoding, dimensions: 1024 }),
  };
}

export async function runEmbeddings(fleet: Fleet, settings: Settings, log: (line: string) => void): Promise<EmbeddingsRow[]> {
  const connections = settings.connections[0]!;
  const scenarios = SCENARIOS.filter((s) => s.target !== 'gateway' || settings.filter === undefined || s.name.includes(settings.filter));
  const requestOf = (s: EmbeddingsScenario) => embeddingsRequest(s, fleet.apiKey(s.target));
  log(`embeddings: ${connections} connections, ${scenarios.length} scenarios x ${settings.repeats} repeats x ${settings.seconds} s`);
  const target = (s: EmbeddingsScenario) => ({ url: fleet.url(s.target), request: requestOf(s), pid: fleet.pid(s.target) });
  const summaries = await measureInterleaved(scenarios, target, { ...settings, connections });
  return scenarios.map((s) => ({ name: s.name, connections, ...summaries.get(s)! }));
}

/** The section's table: each row with its overhead over the minimal proxy (CPU per request, p50). */
export function embeddingsTable(rows: readonly EmbeddingsRow[]): string {
  if (rows.length === 0) return '';
  const proxy = rows.find((r) => r.name.startsWith('minimal proxy'));
  const body = rows.map((r) => [
    r.name,
    String(r.connections),
    cell(r.rps),
    cell(r.p50Ms, 1),
    cell(r.p99Ms, 1),
    cell(r.cpuMicrosPerRequest),
    proxy?.cpuMicrosPerRequest == null || r.cpuMicrosPerRequest === null || r === proxy ? '' : cell(r.cpuMicrosPerRequest - proxy.cpuMicrosPerRequest),
    String(r.errors),
  ]);
  return `\nEmbeddings (POST /v1/embeddings, 16 inputs x 1024 dimensions)\n${textTable(['scenario', 'conns', 'req/s', 'p50 ms', 'p99 ms', 'CPU us/req', 'CPU us/req over proxy', 'errors'], body, [0])}\n`;
}
