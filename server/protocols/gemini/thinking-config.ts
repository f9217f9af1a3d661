import type { ReasoningSetting, UnmappedField } from '../../ir/index.ts';
import type { TranslationWarning } from '../codec.ts';
import { budgetOf, decodeEffort, isReasoningOff } from '../shared/reasoning.ts';
import { reasoningRefusedBy } from '../shared/reasoning-models.ts';
import { reshaped } from '../shared/warnings.ts';

export interface GeminiThinkingConfig {
  thinkingBudget?: number;
  thinkingLevel?: string;
  includeThoughts?: boolean;
}

/** generationConfig.thinkingConfig as the IR setting: budget -1 is "the model decides", 0 is off. */
export function decodeThinkingConfig(config: GeminiThinkingConfig, unmapped: UnmappedField[]): ReasoningSetting | undefined {
  let effort: ReasoningSetting['effort'];
  if (typeof config.thinkingLevel === 'string')
    effort = decodeEffort(config.thinkingLevel, 'generationConfig.thinkingConfig.thinkingLevel', unmapped, 'thinking level');
  const budget = config.thinkingBudget;
  const setting: ReasoningSetting = {
    ...(typeof budget === 'number' && budget >= 0 && { budgetTokens: budget }),
    ...(effort !== undefined && { effort }),
    ...(config.includeThoughts === true && { summary: 'auto' as const }),
  };
  const said = Object.keys(setting).length > 0 || budget === -1;
  return said ? setting : undefined;
}

/**
 * The setting as a thinkingConfig for the lane's model. Gemini 3 takes a level (`thinkingLevel`;
 * it cannot turn thinking off, so "off" is its lowest level); Gemini 2.5 takes a budget, clamped
 * to what the model accepts (Pro 128-32768, Flash 0-24576). A client that wants to see the
 * reasoning gets `includeThoughts`.
 */
export function encodeThinkingConfig(setting: ReasoningSetting | undefined, model: string, warnings: TranslationWarning[]): GeminiThinkingConfig | undefined {
  if (setting === undefined || reasoningRefusedBy(setting, model, warnings)) return undefined;
  const config: GeminiThinkingConfig = {};
  const off = isReasoningOff(setting);
  if (/gemini-[3-9]/.test(model) && (setting.budgetTokens === undefined || off)) {
    if (off) warnings.push(reshaped('reasoning', `${model} cannot turn thinking off: its lowest level, low, is asked for`));
    const effort = off ? 'low' : setting.effort === 'xhigh' ? 'high' : setting.effort;
    if (effort !== undefined) config.thinkingLevel = effort;
  } else {
    const budget = budgetOf(setting);
    const most = /-pro/.test(model) ? 32768 : 24576;
    if (budget !== undefined && budget > most)
      warnings.push(reshaped('reasoning.budget_tokens', `thinking budget ${budget} lowered to ${most}, the most ${model} accepts`));
    config.thinkingBudget = budget === undefined ? -1 : Math.min(budget, most);
  }
  if (setting.summary !== undefined && !off) config.includeThoughts = true;
  return Object.keys(config).length > 0 ? config : undefined;
}
