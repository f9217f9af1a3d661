import { parseRequestJson } from '../../gateway/request-body.ts';
import { protocolDefinition } from '../../protocols/registry.ts';
import { tokensInBytes } from '../../gateway/token-estimate.ts';
import { GatewayFailure, gatewayError, ZERO_USAGE, type EmbeddingsRequest, type ProtocolId, type Usage } from '../../ir/index.ts';
import type { EmbeddingLane, EmbeddingsOrigin } from '../../protocols/embeddings-codec.ts';
import { withoutAbsentNulls } from '../../protocols/shared/absent-nulls.ts';
import type { OperationDeclaration } from '../operation.ts';
import { forwardWhole, translateWhole } from '../whole-answer.ts';
import { mergeBatches, splitBatches } from './embeddings-batches.ts';
import { embeddingsCodecFor } from './embeddings-codecs.ts';
import { embeddingsPricing } from './embeddings-pricing.ts';

/**
 * Embeddings in the client's protocol (`protocol`, with what its route said in `origin`): the
 * same protocol forwards the bytes with only the model rewritten; another protocol goes through
 * the embeddings IR, split into the upstream's batch size and merged back in order.
 */
export function embeddingsOperation(protocol: ProtocolId, origin: EmbeddingsOrigin): OperationDeclaration {
  const codec = embeddingsCodecFor(protocol);
  const validate = protocolDefinition(protocol).validators.embeddings;
  if (codec === undefined || validate === undefined) throw new Error(`the ${protocol} protocol has no embeddings route`);
  return {
    operation: 'embeddings',
    prepare(exchange, body) {
      // The protocol's published request schema first (spec/protocols/<id>/embeddings-request.schema.json), then the codec's own checks.
      const json = parseRequestJson(body, validate);
      const request = codec.decodeRequest(withoutAbsentNulls(json, protocol), origin);
      const textBytes = request.untranslatable === undefined ? textBytesOf(request) : body.length;
      return {
        model: origin.pathModel ?? request.model,
        gateBody: json,
        pricing: embeddingsPricing({ bytes: body.length, textBytes }),
        attempt(lane) {
          const target: EmbeddingLane = { model: lane.upstreamModel, inputType: lane.embeddingInputType };
          if (lane.provider.protocol === protocol && codec.forwards?.(request, lane.upstreamModel) !== false) {
            const call = codec.forward(body, json, origin, target);
            return (attempt) => forwardWhole(exchange, attempt, call, (answer) => tokenUsage(codec.reportedTokens(answer.body, answer.headers)));
          }
          const egress = embeddingsCodecFor(lane.provider.protocol);
          if (egress === undefined) throw noEmbeddings(lane.provider.protocol);
          const encoded = splitBatches(request, egress.batchLimit(lane.upstreamModel)).map((batch) => egress.encodeRequest(batch, target)); // throws when the lane cannot express it
          const warnings = encoded[0]?.warnings ?? [];
          return (attempt) =>
            translateWhole(
              exchange,
              attempt,
              encoded.map((e) => e.call),
              (answer) => egress.decodeResponse(JSON.parse(answer.body.toString('utf8')) as Record<string, unknown>, answer.headers),
              (parts) => {
                const merged = mergeBatches(parts);
                if (merged.vectors.length !== request.inputs.length) throw new Error(`${merged.vectors.length} vectors for ${request.inputs.length} inputs`);
                const inputTokens = merged.inputTokens ?? tokensInBytes(textBytes);
                const answer = codec.encodeResponse(merged, request, { model: origin.pathModel ?? request.model ?? lane.upstreamModel, inputTokens });
                return { ...answer, usage: tokenUsage(merged.inputTokens ?? undefined), warnings };
              },
            );
        },
      };
    },
  };
}

function textBytesOf(request: EmbeddingsRequest): number {
  let bytes = 0;
  for (const text of request.inputs) bytes += Buffer.byteLength(text);
  return bytes;
}

function tokenUsage(inputTokens: number | undefined): Usage | null {
  return inputTokens === undefined ? null : { ...ZERO_USAGE, inputTokens };
}

function noEmbeddings(protocol: ProtocolId): GatewayFailure {
  return new GatewayFailure(
    gatewayError('invalid_request', `the ${protocol} protocol has no embeddings operation: this lane cannot serve embeddings`, {
      param: 'model',
      code: 'operation_not_supported',
    }),
  );
}
