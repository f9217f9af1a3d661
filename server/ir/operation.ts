/**
 * What a request asks for, whatever the protocol: the unit a route, a model's `operations:`, a
 * price, a metric label and a span name are kept by. Each has its handler in
 * `http/operation-handlers.ts`; the listing (`GET /v1/models`) names no model and is none of them.
 */
export const OPERATIONS = ['chat', 'count_tokens', 'embeddings', 'moderations', 'images', 'audio', 'rerank'] as const;
export type Operation = (typeof OPERATIONS)[number];

/**
 * `gen_ai.operation.name` of the OpenTelemetry GenAI conventions, where they name one; an operation
 * they do not name goes by its own name.
 */
const GENAI_OPERATION_NAMES: Readonly<Partial<Record<Operation, string>>> = { chat: 'chat', embeddings: 'embeddings' };

export function genAiOperationName(operation: Operation): string {
  return GENAI_OPERATION_NAMES[operation] ?? operation;
}
