import type { UnmappedField } from '../../ir/index.ts';
import type { TranslationWarning } from '../codec.ts';
import { dropped } from '../shared/warnings.ts';
import { MODEL_FIELD_RULES } from './request-fields.ts';

// additionalModelRequestFields: what Bedrock hands to the model as it is. Of all it may hold, the
// IR has a slot for top-k only, which Claude reads as `top_k` and Nova as `inferenceConfig.topK`.

/** Top-k maps to the IR; every other key is reported on its own path so the warning names it. */
export function decodeModelFields(fields: unknown, unmapped: UnmappedField[]): number | undefined {
  if (fields === null || typeof fields !== 'object' || Array.isArray(fields)) return undefined;
  let topK: number | undefined;
  for (const [key, value] of Object.entries(fields as Record<string, unknown>)) {
    if (value === undefined || value === null) continue;
    const path = `additionalModelRequestFields.${key}`;
    if (key === 'top_k' && typeof value === 'number') {
      topK = value;
      continue;
    }
    if (key === 'inferenceConfig' && typeof value === 'object') {
      const { topK: novaTopK, ...others } = value as Record<string, unknown>;
      if (typeof novaTopK === 'number') topK = novaTopK;
      for (const [inner, v] of Object.entries(others)) unmapped.push({ path: `${path}.${inner}`, value: v, disposition: 'warn', reason: 'model-specific inference setting' });
      continue;
    }
    const rule = MODEL_FIELD_RULES[key];
    if (rule?.isNeutral?.(value) === true) continue;
    unmapped.push({ path, value, disposition: rule?.disposition ?? 'warn', reason: rule?.reason ?? 'model-specific request field' });
  }
  return topK;
}

/**
 * Converse has no top-k; it travels in the model-specific fields, whose names differ per model
 * family, and models refuse fields they do not know. The family is read from the model id
 * (`anthropic.claude-…`, `us.amazon.nova-…`); an id that does not show it (an ARN) gets no top-k.
 */
export function encodeTopK(topK: number, model: string, warnings: TranslationWarning[]): Record<string, unknown> | undefined {
  if (/(?:^|[.:/])anthropic\./.test(model)) return { top_k: topK };
  if (/(?:^|[.:/])amazon\.nova-/.test(model)) return { inferenceConfig: { topK } };
  warnings.push(dropped('top_k', `top-k sampling (this codec knows how to send it only to Claude and Nova models, not to ${model})`));
  return undefined;
}
