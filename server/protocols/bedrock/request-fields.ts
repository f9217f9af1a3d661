import type { FieldRule } from '../shared/unmapped-fields.ts';

/** Converse fields the IR maps (the model id is in the path, never in the body). */
export const MAPPED_FIELDS: ReadonlySet<string> = new Set([
  'messages',
  'system',
  'inferenceConfig',
  'toolConfig',
  'additionalModelRequestFields',
  'outputConfig',
]);

/** Converse fields with no IR slot, and what happens to them on a cross-protocol hop. */
export const FIELD_RULES: Readonly<Record<string, FieldRule>> = {
  // Dropping a guardrail would skip the content checks the client asked for: refuse instead.
  guardrailConfig: { disposition: 'reject', reason: 'Bedrock guardrail' },
  // They fill the placeholders of a Bedrock-managed prompt; without them the prompt is incomplete.
  promptVariables: { disposition: 'reject', reason: 'Bedrock prompt-management variables' },
  additionalModelResponseFieldPaths: { disposition: 'warn', reason: 'extra model-specific response fields' },
  requestMetadata: { disposition: 'warn', reason: 'Bedrock invocation-log metadata' },
  performanceConfig: {
    disposition: 'warn',
    reason: 'Bedrock latency-optimised inference',
    isNeutral: (v) => (v as { latency?: string }).latency === 'standard',
  },
  serviceTier: { disposition: 'warn', reason: 'Bedrock service tier', isNeutral: (v) => (v as { type?: string }).type === 'default' },
};

/**
 * `additionalModelRequestFields` keys with a rule of their own (top-k and the reasoning settings are
 * mapped by model-fields.ts); every other key is reported under `additionalModelRequestFields.<key>`.
 */
export const MODEL_FIELD_RULES: Readonly<Record<string, FieldRule>> = {};
