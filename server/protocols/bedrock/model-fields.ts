import type { ChatRequest, ReasoningSetting, UnmappedField } from '../../ir/index.ts';
import { decodeThinking } from '../anthropic/thinking.ts';
import { claudeThinking, type ClaudeSampling } from '../shared/claude-thinking.ts';
import { decodeEffort, effortOf, isReasoningOff } from '../shared/reasoning.ts';
import { reasoningRefusedBy } from '../shared/reasoning-models.ts';
import type { TranslationWarning } from '../codec.ts';
import { dropped } from '../shared/warnings.ts';
import { MODEL_FIELD_RULES } from './request-fields.ts';

// additionalModelRequestFields: what Bedrock hands to the model as it is. Of all it may hold, the
// IR has slots for top-k (Claude reads `top_k`, Nova `inferenceConfig.topK`) and the reasoning setting.

export interface ModelFields {
  readonly topK?: number;
  readonly reasoning?: ReasoningSetting;
}

/**
 * Top-k and the reasoning settings map to the IR (Claude's `thinking`, or `reasoning_config` of
 * the same shape; Nova's `reasoningConfig`); every other key is reported on its own path so the
 * warning names it.
 */
export function decodeModelFields(fields: unknown, unmapped: UnmappedField[]): ModelFields {
  if (fields === null || typeof fields !== 'object' || Array.isArray(fields)) return {};
  let topK: number | undefined;
  let reasoning: ReasoningSetting | undefined;
  for (const [key, value] of Object.entries(fields as Record<string, unknown>)) {
    if (value === undefined || value === null) continue;
    const path = `additionalModelRequestFields.${key}`;
    if (key === 'top_k' && typeof value === 'number') {
      topK = value;
      continue;
    }
    if (key === 'thinking' || key === 'reasoning_config') {
      reasoning = decodeThinking(value, undefined, path, unmapped) ?? reasoning;
      continue;
    }
    if (key === 'reasoningConfig' && typeof value === 'object') {
      reasoning = decodeNovaReasoning(value as NovaReasoningConfig, path, unmapped) ?? reasoning;
      continue;
    }
    if (key === 'inferenceConfig' && typeof value === 'object') {
      const { topK: novaTopK, ...others } = value as Record<string, unknown>;
      if (typeof novaTopK === 'number') topK = novaTopK;
      for (const [inner, v] of Object.entries(others))
        unmapped.push({ path: `${path}.${inner}`, value: v, disposition: 'warn', reason: 'model-specific inference setting' });
      continue;
    }
    const rule = MODEL_FIELD_RULES[key];
    if (rule?.isNeutral?.(value) === true) continue;
    unmapped.push({ path, value, disposition: rule?.disposition ?? 'warn', reason: rule?.reason ?? 'model-specific request field' });
  }
  return { ...(topK !== undefined && { topK }), ...(reasoning !== undefined && { reasoning }) };
}

/** Amazon Nova 2's reasoning switch: `{type: enabled|disabled, maxReasoningEffort: low|medium|high}`. */
interface NovaReasoningConfig {
  type?: string;
  maxReasoningEffort?: string;
}

function decodeNovaReasoning(config: NovaReasoningConfig, path: string, unmapped: UnmappedField[]): ReasoningSetting | undefined {
  if (config.type === 'disabled') return { effort: 'none' };
  if (config.type !== 'enabled') return undefined;
  const effort = typeof config.maxReasoningEffort === 'string' ? decodeEffort(config.maxReasoningEffort, `${path}.maxReasoningEffort`, unmapped) : undefined;
  return { ...(effort !== undefined && { effort }), summary: 'auto' };
}

const isClaude = (model: string) => /(?:^|[.:/])anthropic\./.test(model);
const isNova = (model: string) => /(?:^|[.:/])amazon\.nova-/.test(model);

export interface EncodedReasoning {
  readonly fields?: Record<string, unknown>;
  /** inferenceConfig.maxTokens to send instead of the client's (Claude needs room above the budget). */
  readonly maxTokens?: number;
  /** Sampling to send instead of the client's (Claude takes only some while thinking). */
  readonly sampling?: ClaudeSampling;
}

/**
 * The reasoning setting in the model's own fields: Claude's `thinking` (with Claude's rules, and
 * max tokens always sent, since Bedrock's default may sit below the budget), Nova's
 * `reasoningConfig` (levels low to high). Other families: dropped with a warning, their fields
 * being unknown to this codec. Off sends nothing: both families reason only when asked.
 */
export function encodeReasoningFields(request: ChatRequest, model: string, laneMax: number, warnings: TranslationWarning[]): EncodedReasoning {
  const setting = request.reasoning;
  if (setting === undefined || isReasoningOff(setting) || reasoningRefusedBy(setting, model, warnings)) return {};
  if (isClaude(model)) {
    const claude = claudeThinking(request, laneMax, warnings, 'bedrock');
    if (claude.thinking === undefined) return {};
    return { fields: { thinking: claude.thinking }, maxTokens: claude.maxTokens ?? laneMax, sampling: claude.sampling };
  }
  if (isNova(model)) {
    const effort = effortOf(setting);
    const level = effort === 'minimal' ? 'low' : effort === 'xhigh' ? 'high' : effort;
    return { fields: { reasoningConfig: { type: 'enabled', ...(level !== undefined && { maxReasoningEffort: level }) } } };
  }
  warnings.push(dropped('reasoning', `the reasoning setting (this codec knows how to send it only to Claude and Nova models, not to ${model})`));
  return {};
}

/**
 * Converse has no top-k; it travels in the model-specific fields, whose names differ per model
 * family, and models refuse fields they do not know. The family is read from the model id
 * (`anthropic.claude-…`, `us.amazon.nova-…`); an id that does not show it (an ARN) gets no top-k.
 */
export function encodeTopK(topK: number, model: string, warnings: TranslationWarning[]): Record<string, unknown> | undefined {
  if (isClaude(model)) return { top_k: topK };
  if (isNova(model)) return { inferenceConfig: { topK } };
  warnings.push(dropped('top_k', `top-k sampling (this codec knows how to send it only to Claude and Nova models, not to ${model})`));
  return undefined;
}
