/**
 * What a request asks for, whatever the protocol: the unit a route, a model's `operations:`, a
 * price, a metric label and a span name are kept by. `chat` and `count_tokens` are served today;
 * the others get their routes as their handlers land (issue 15).
 */
export const OPERATIONS = ['chat', 'count_tokens', 'embeddings', 'moderations', 'images', 'audio', 'rerank', 'models'] as const;
export type Operation = (typeof OPERATIONS)[number];

/**
 * `gen_ai.operation.name` of the OpenTelemetry GenAI conventions, where they name one; an operation
 * they do not name goes by its own name.
 */
const GENAI_OPERATION_NAMES: Readonly<Partial<Record<Operation, string>>> = { chat: 'chat', embeddings: 'embeddings' };

export function genAiOperationName(operation: Operation): string {
  return GENAI_OPERATION_NAMES[operation] ?? operation;
}
