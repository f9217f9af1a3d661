import { randomUUID } from 'node:crypto';
import { parseJsonObject } from '../../gateway/request-body.ts';
import { ZERO_USAGE, type ProtocolId } from '../../ir/index.ts';
import { replaceTopLevelString } from '../../protocols/passthrough.ts';
import { requireSameProtocolLane } from '../lane-protocol.ts';
import type { OperationDeclaration } from '../operation.ts';
import { relayAnswer } from '../relay-answer.ts';
import { PER_SEARCH, unitPricing } from '../unit-pricing.ts';
import { translateWhole } from '../whole-answer.ts';
import { bedrockRerankCall, readBedrockRerank } from './bedrock-rerank.ts';
import { readRerankRequest, searchUnits } from './rerank-request.ts';

/**
 * Rerank in Cohere's shape (`/v2/rerank`, and `/v1/rerank` for the Cohere v1 and Jina clients):
 * to a Cohere lane the bytes go as sent, only the model rewritten, to the same path; to a Bedrock
 * lane hosting Cohere Rerank it becomes an InvokeModel call and the answer is written back in
 * Cohere's shape. Priced per search (`operation_prices.rerank.per_thousand_requests`): the
 * answer's billed search units when it reports them, else one per query and 100 documents. Its
 * settlement records no tokens, so it holds none against a tpm.
 */
export function rerankOperation(protocol: ProtocolId, version: 'v1' | 'v2'): OperationDeclaration {
  return {
    operation: 'rerank',
    prepare(exchange, body) {
      const json = parseJsonObject(body);
      const request = readRerankRequest(json);
      const estimated = searchUnits(request.documents.length);
      let billed: number | undefined;
      return {
        model: request.model,
        gateBody: json,
        pricing: unitPricing('rerank', PER_SEARCH, { units: estimated, tokens: 0 }, () => ({ units: billed ?? estimated })),
        attempt(lane) {
          requireSameProtocolLane(lane, 'rerank', [protocol, 'bedrock']);
          if (lane.provider.protocol === protocol) {
            const call = {
              path: `/${version}/rerank`,
              body: request.model === lane.upstreamModel ? body : replaceTopLevelString(body, 'model', lane.upstreamModel),
            };
            return (attempt) =>
              relayAnswer(exchange, attempt, call, (answer) => {
                billed = answer === undefined ? undefined : billedSearchUnits(answer);
                return null;
              });
          }
          const call = bedrockRerankCall(request, lane.upstreamModel);
          return (attempt) =>
            translateWhole(
              exchange,
              attempt,
              [call],
              (answer) => readBedrockRerank(JSON.parse(answer.body.toString('utf8')) as Record<string, unknown>),
              ([ranked]) => {
                const results = ranked!.results.map((r) => ({
                  index: r.index,
                  relevance_score: r.relevanceScore,
                  ...(version === 'v1' && request.returnDocuments && { document: { text: request.documents[r.index] } }),
                }));
                const answer = {
                  id: ranked!.id ?? randomUUID(),
                  results,
                  meta: { api_version: { version: version === 'v1' ? '1' : '2' }, billed_units: { search_units: estimated } },
                };
                return { body: JSON.stringify(answer), headers: { 'content-type': 'application/json' }, usage: ZERO_USAGE, warnings: [] };
              },
            );
        },
      };
    },
  };
}

/** `meta.billed_units.search_units` of a Cohere rerank answer. */
function billedSearchUnits(answer: Buffer): number | undefined {
  try {
    const units = (JSON.parse(answer.toString('utf8')) as { meta?: { billed_units?: { search_units?: unknown } } }).meta?.billed_units?.search_units;
    return typeof units === 'number' ? units : undefined;
  } catch {
    return undefined;
  }
}
