import type { FieldRule } from '../shared/unmapped-fields.ts';

/** v2 Chat fields the IR maps (`strict_tools` becomes `strict` on every tool). */
export const MAPPED_FIELDS: ReadonlySet<string> = new Set([
  'model',
  'messages',
  'stream',
  'tools',
  'strict_tools',
  'tool_choice',
  'response_format',
  'max_tokens',
  'stop_sequences',
  'temperature',
  'k',
  'p',
  'seed',
  'thinking',
]);

const isZero = (v: unknown) => v === 0;
const isEmptyList = (v: unknown) => Array.isArray(v) && v.length === 0;

/**
 * v2 Chat fields with no IR slot, and what happens to them on a cross-protocol hop:
 * `reject` where dropping would change the answer the client gets, `warn` where it would not.
 */
export const FIELD_RULES: Readonly<Record<string, FieldRule>> = {
  documents: { disposition: 'reject', reason: 'documents for retrieval-augmented generation', isNeutral: isEmptyList },
  logprobs: { disposition: 'reject', reason: 'token log probabilities', isNeutral: (v) => v === false },
  citation_options: { disposition: 'warn', reason: 'citation settings' },
  safety_mode: { disposition: 'warn', reason: 'Cohere safety mode' },
  frequency_penalty: { disposition: 'warn', reason: 'sampling penalty', isNeutral: isZero },
  presence_penalty: { disposition: 'warn', reason: 'sampling penalty', isNeutral: isZero },
  priority: { disposition: 'warn', reason: 'Cohere request priority', isNeutral: isZero },
};
