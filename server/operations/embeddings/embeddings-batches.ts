import type { EmbeddingsRequest, EmbeddingsResponse } from '../../ir/index.ts';

/** The request cut into requests of at most `limit` texts each (one upstream call each), in order. */
export function splitBatches(request: EmbeddingsRequest, limit: number): EmbeddingsRequest[] {
  const count = request.inputs.length;
  if (count <= limit) return [request];
  const out: EmbeddingsRequest[] = [];
  for (let start = 0; start < count; start += limit) out.push({ ...request, inputs: request.inputs.slice(start, start + limit) });
  return out;
}

/** The answers of the batches, in order, as one: vectors concatenated, tokens summed (unknown if any batch did not say). */
export function mergeBatches(parts: readonly EmbeddingsResponse[]): EmbeddingsResponse {
  if (parts.length === 1) return parts[0]!;
  let inputTokens: number | null = 0;
  for (const part of parts) inputTokens = inputTokens === null || part.inputTokens === null ? null : inputTokens + part.inputTokens;
  return { vectors: parts.flatMap((p) => p.vectors), inputTokens };
}
