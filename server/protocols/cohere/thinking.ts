import type { ReasoningSetting } from '../../ir/index.ts';
import type { TranslationWarning } from '../codec.ts';
import { budgetOf, isReasoningOff } from '../shared/reasoning.ts';
import { reasoningRefusedBy } from '../shared/reasoning-models.ts';

import type { Thinking as CohereThinking } from '../../../generated/protocols/cohere/request.ts';

/** `thinking` ({type, token_budget}) as the IR setting; Cohere shows its thinking, so enabled asks to see it. */
export function decodeThinking(thinking: CohereThinking | undefined): ReasoningSetting | undefined {
  if (thinking === null || thinking === undefined) return undefined;
  if (thinking.type === 'disabled') return { effort: 'none' };
  if (thinking.type !== 'enabled') return undefined;
  return { ...(typeof thinking.token_budget === 'number' && { budgetTokens: thinking.token_budget }), summary: 'auto' };
}

/** The setting as `thinking`: off is said (Cohere's reasoning models think by default), a level becomes a budget. */
export function encodeThinking(setting: ReasoningSetting | undefined, model: string, warnings: TranslationWarning[]): CohereThinking | undefined {
  if (setting === undefined || reasoningRefusedBy(setting, model, warnings)) return undefined;
  if (isReasoningOff(setting)) return { type: 'disabled' };
  const budget = budgetOf(setting);
  return { type: 'enabled', ...(budget !== undefined && { token_budget: budget }) };
}
