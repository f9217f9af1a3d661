import type { FieldRule } from '../shared/unmapped-fields.ts';

/** Messages fields the IR maps. */
export const MAPPED_FIELDS: ReadonlySet<string> = new Set([
  'model',
  'max_tokens',
  'messages',
  'system',
  'stop_sequences',
  'stream',
  'temperature',
  'top_p',
  'top_k',
  'tools',
  'tool_choice',
  'metadata',
  'output_config',
  'thinking',
]);

/** Messages fields with no IR slot, and what happens to them on a cross-protocol hop. */
export const FIELD_RULES: Readonly<Record<string, FieldRule>> = {
  service_tier: { disposition: 'warn', reason: 'Anthropic service tier' },
  cache_control: { disposition: 'warn', reason: 'automatic prompt caching hint' },
  inference_geo: { disposition: 'warn', reason: 'Anthropic inference region' },
  speed: { disposition: 'warn', reason: 'Anthropic speed setting' },
  diagnostics: { disposition: 'warn', reason: 'Anthropic diagnostics' },
  container: { disposition: 'reject', reason: 'Anthropic code-execution container' },
  mcp_servers: { disposition: 'reject', reason: 'Anthropic-hosted MCP servers' },
  context_management: { disposition: 'reject', reason: 'Anthropic context management' },
};
