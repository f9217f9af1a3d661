import type { FieldRule } from '../shared/unmapped-fields.ts';

/** Responses fields the IR maps (`stream_options` only asks for obfuscation padding: nothing to carry). */
export const MAPPED_FIELDS: ReadonlySet<string> = new Set([
  'model',
  'input',
  'instructions',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'max_output_tokens',
  'temperature',
  'top_p',
  'text',
  'user',
  'safety_identifier',
  'stream',
  'stream_options',
  'reasoning',
]);

const isFalse = (v: unknown) => v === false;
const isZero = (v: unknown) => v === 0;
const isEmpty = (v: unknown) => (Array.isArray(v) ? v.length === 0 : typeof v === 'object' && v !== null && Object.keys(v).length === 0);

/**
 * Responses fields with no IR slot, and what happens to them on a cross-protocol hop. Server-side
 * state (a stored response or conversation, background runs, stored prompts) cannot be rebuilt by
 * the gateway, so asking for it is refused; storage, caching and tuning hints are dropped with a
 * warning because the answer stays the same without them.
 */
export const FIELD_RULES: Readonly<Record<string, FieldRule>> = {
  previous_response_id: { disposition: 'reject', reason: 'a response stored at OpenAI (server-side conversation state)' },
  conversation: { disposition: 'reject', reason: 'a conversation stored at OpenAI (server-side conversation state)' },
  background: { disposition: 'reject', reason: 'OpenAI background mode', isNeutral: isFalse },
  prompt: { disposition: 'reject', reason: 'a prompt template stored at OpenAI' },
  top_logprobs: { disposition: 'reject', reason: 'token log probabilities', isNeutral: isZero },
  store: { disposition: 'warn', reason: 'OpenAI response storage', isNeutral: isFalse },
  metadata: { disposition: 'warn', reason: 'OpenAI stored-response metadata', isNeutral: isEmpty },
  include: { disposition: 'warn', reason: 'extra output OpenAI adds on request', isNeutral: isEmpty },
  truncation: { disposition: 'warn', reason: 'OpenAI context truncation strategy', isNeutral: (v) => v === 'disabled' },
  service_tier: { disposition: 'warn', reason: 'OpenAI service tier' },
  prompt_cache_key: { disposition: 'warn', reason: 'OpenAI prompt cache routing key' },
  prompt_cache_retention: { disposition: 'warn', reason: 'OpenAI prompt cache retention' },
  prompt_cache_options: { disposition: 'warn', reason: 'OpenAI prompt cache options' },
  max_tool_calls: { disposition: 'warn', reason: 'a limit on OpenAI built-in tool calls' },
  context_management: { disposition: 'warn', reason: 'OpenAI server-side context compaction', isNeutral: isEmpty },
  moderation: { disposition: 'warn', reason: 'OpenAI moderation setting' },
  image: { disposition: 'warn', reason: 'OpenAI image context compression' },
  access_programs: { disposition: 'warn', reason: 'OpenAI access program' },
};
