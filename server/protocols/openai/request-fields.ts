import type { FieldRule } from '../shared/unmapped-fields.ts';

/** Chat Completions fields the IR maps. */
export const MAPPED_FIELDS: ReadonlySet<string> = new Set([
  'model',
  'messages',
  'stream',
  'stream_options',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'max_tokens',
  'max_completion_tokens',
  'stop',
  'temperature',
  'top_p',
  'response_format',
  'user',
  'safety_identifier',
  'seed',
  'reasoning_effort',
]);

const isFalse = (v: unknown) => v === false;
const isZero = (v: unknown) => v === 0;

/**
 * Chat Completions fields with no IR slot, and what happens to them on a cross-protocol hop:
 * `reject` where dropping would change the answer the client gets, `warn` where it would not.
 */
export const FIELD_RULES: Readonly<Record<string, FieldRule>> = {
  n: { disposition: 'reject', reason: 'several choices per request', isNeutral: (v) => v === 1 },
  logprobs: { disposition: 'reject', reason: 'token log probabilities', isNeutral: isFalse },
  top_logprobs: { disposition: 'reject', reason: 'token log probabilities', isNeutral: isZero },
  logit_bias: { disposition: 'reject', reason: 'token-level biasing', isNeutral: (v) => typeof v === 'object' && v !== null && Object.keys(v).length === 0 },
  audio: { disposition: 'reject', reason: 'audio output' },
  modalities: { disposition: 'reject', reason: 'non-text output', isNeutral: (v) => Array.isArray(v) && v.every((m) => m === 'text') },
  prediction: { disposition: 'warn', reason: 'predicted outputs only speed up OpenAI' },
  web_search_options: { disposition: 'reject', reason: 'OpenAI-hosted web search' },
  functions: { disposition: 'reject', reason: 'deprecated `functions`; use `tools`' },
  function_call: { disposition: 'reject', reason: 'deprecated `function_call`; use `tool_choice`' },
  frequency_penalty: { disposition: 'warn', reason: 'sampling penalty', isNeutral: isZero },
  presence_penalty: { disposition: 'warn', reason: 'sampling penalty', isNeutral: isZero },
  verbosity: { disposition: 'warn', reason: 'output verbosity hint' },
  metadata: { disposition: 'warn', reason: 'OpenAI stored-completion metadata' },
  store: { disposition: 'warn', reason: 'OpenAI stored completions', isNeutral: isFalse },
  service_tier: { disposition: 'warn', reason: 'OpenAI service tier' },
  prompt_cache_key: { disposition: 'warn', reason: 'OpenAI prompt cache routing key' },
  prompt_cache_retention: { disposition: 'warn', reason: 'OpenAI prompt cache retention' },
  moderation: { disposition: 'warn', reason: 'OpenAI moderation setting' },
};
