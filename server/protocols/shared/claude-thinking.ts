import type { Message, ProtocolId, ReasoningSetting } from '../../ir/index.ts';
import type { TranslationWarning } from '../codec.ts';
import { budgetOf, EFFORT_BUDGET, isReasoningOff } from './reasoning.ts';
import { dropped, reshaped } from './warnings.ts';

/** Claude's rules for `thinking.budget_tokens`: at least this, and below max_tokens. */
export const CLAUDE_MIN_THINKING_BUDGET = 1024;

export interface ClaudeThinking {
  /** `{type: enabled, budget_tokens}`; undefined: send no thinking (off is Claude's default). */
  readonly thinking?: { type: 'enabled'; budget_tokens: number };
  /** max_tokens to send, raised when the client set none and the budget needs room. */
  readonly maxTokens: number | undefined;
}

/**
 * The IR reasoning setting as Claude's extended thinking (Anthropic Messages, and Claude on Bedrock
 * via additionalModelRequestFields). A budget below 1024 is raised to 1024. The budget must stay
 * below max_tokens: when the client set its own maximum, that cap wins and the budget is lowered
 * to fit (thinking is dropped when even 1024 does not fit); when it set none, max_tokens is raised
 * to the budget plus the lane's usual maximum. Each change is a warning.
 */
export function claudeThinking(setting: ReasoningSetting | undefined, clientMax: number | undefined, laneMax: number, warnings: TranslationWarning[], history: readonly Message[], own: ProtocolId): ClaudeThinking {
  if (setting === undefined || isReasoningOff(setting)) return { maxTokens: clientMax };
  if (loopWithoutThinking(history, own)) {
    warnings.push(dropped('reasoning', 'extended thinking for this request (the tool loop\'s last assistant turn has no Claude thinking to send back, which Claude requires when thinking is on)'));
    return { maxTokens: clientMax };
  }
  let budget = budgetOf(setting) ?? EFFORT_BUDGET.medium;
  if (budget < CLAUDE_MIN_THINKING_BUDGET) {
    warnings.push(reshaped('reasoning.budget_tokens', `thinking budget ${budget} raised to ${CLAUDE_MIN_THINKING_BUDGET}, the least Claude accepts`));
    budget = CLAUDE_MIN_THINKING_BUDGET;
  }
  if (clientMax === undefined) {
    if (laneMax > budget) return { thinking: { type: 'enabled', budget_tokens: budget }, maxTokens: undefined };
    const raised = budget + laneMax;
    warnings.push(reshaped('max_tokens', `max_tokens raised to ${raised} (the thinking budget ${budget} plus ${laneMax} for the answer): Claude needs it above the budget`));
    return { thinking: { type: 'enabled', budget_tokens: budget }, maxTokens: raised };
  }
  if (budget < clientMax) return { thinking: { type: 'enabled', budget_tokens: budget }, maxTokens: clientMax };
  if (clientMax - 1 >= CLAUDE_MIN_THINKING_BUDGET) {
    warnings.push(reshaped('reasoning.budget_tokens', `thinking budget ${budget} lowered to ${clientMax - 1}: Claude needs it below max_tokens (${clientMax})`));
    return { thinking: { type: 'enabled', budget_tokens: clientMax - 1 }, maxTokens: clientMax };
  }
  warnings.push(dropped('reasoning', `extended thinking (max_tokens ${clientMax} leaves no room for Claude's least budget of ${CLAUDE_MIN_THINKING_BUDGET})`));
  return { maxTokens: clientMax };
}

/**
 * With thinking on, Claude refuses a history whose last assistant turn calls tools without
 * starting with its own signed thinking block (the tool loop is one turn). Clients of other
 * protocols cannot send Claude's thinking back, so such a continuation runs without thinking.
 */
function loopWithoutThinking(history: readonly Message[], own: ProtocolId): boolean {
  for (let i = history.length - 1; i >= 0; i--) {
    const message = history[i] as Message;
    if (message.role !== 'assistant') continue;
    if (!message.content.some((block) => block.type === 'tool_call')) return false;
    const first = message.content[0];
    return !(first?.type === 'reasoning' && first.origin === own && (first.signature !== undefined || first.redacted !== undefined));
  }
  return false;
}
