import type { WholeCall } from '../whole-answer.ts';
import type { RerankRequest } from './rerank-request.ts';

/** One ranked document of an answer, whatever the upstream. */
export interface RankedDocument {
  readonly index: number;
  readonly relevanceScore: number;
}

/**
 * Bedrock InvokeModel for Cohere Rerank (`cohere.rerank-v3-5:0`): Cohere's v2 body without the
 * model (it is in the path) and with `api_version: 2`, as Bedrock's Cohere Rerank page shows.
 */
export function bedrockRerankCall(request: RerankRequest, upstreamModel: string): WholeCall {
  const body: Record<string, unknown> = { query: request.query, documents: request.documents, api_version: 2 };
  if (request.topN !== undefined) body.top_n = request.topN;
  return { path: `/model/${encodeURIComponent(upstreamModel)}/invoke`, body: JSON.stringify(body) };
}

/** Bedrock's answer `{ id, results: [{ index, relevance_score }] }`. */
export function readBedrockRerank(json: Record<string, unknown>): { id: string | undefined; results: RankedDocument[] } {
  if (!Array.isArray(json.results)) throw new Error('no results list');
  const results = json.results.map((r: unknown) => {
    const { index, relevance_score: score } = r as { index?: unknown; relevance_score?: unknown };
    if (typeof index !== 'number' || typeof score !== 'number') throw new Error('a result without index and relevance_score');
    return { index, relevanceScore: score };
  });
  return { id: typeof json.id === 'string' ? json.id : undefined, results };
}
