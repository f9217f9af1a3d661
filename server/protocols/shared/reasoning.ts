import type { ReasoningEffort, ReasoningSetting, UnmappedField } from '../../ir/index.ts';

/**
 * The one table between effort levels and token budgets (docs/protocols.md §3.11 repeats it).
 * Protocols that take a level (OpenAI `reasoning_effort`, Responses `reasoning.effort`, Gemini 3
 * `thinkingLevel`, Nova `maxReasoningEffort`) get a level; protocols that take a budget (Anthropic
 * `budget_tokens`, Gemini 2.5 `thinkingBudget`, Cohere `token_budget`) get a budget.
 *
 *   effort   budget      a budget B becomes the level whose budget is nearest:
 *   none          0      B = 0
 *   minimal    1024      0 < B < 2560
 *   low        4096      2560 ≤ B < 6144
 *   medium     8192      6144 ≤ B < 12288
 *   high      16384      12288 ≤ B   (never xhigh: few models accept it; asked for by name only)
 *   xhigh     32768
 *
 * "On, the model decides" (no level, no budget) is sent as such where the target can say it
 * (Gemini's dynamic budget, Cohere `enabled`, the model's default level) and as `medium` where a
 * number is required (Anthropic).
 */
export const EFFORT_BUDGET: Readonly<Record<ReasoningEffort, number>> = {
  none: 0,
  minimal: 1024,
  low: 4096,
  medium: 8192,
  high: 16384,
  xhigh: 32768,
};

/** Level thresholds for a budget: the midpoints between neighbouring budgets of the table. */
const BUDGET_LEVELS: readonly (readonly [number, ReasoningEffort])[] = [
  [2560, 'minimal'],
  [6144, 'low'],
  [12288, 'medium'],
];

export const EFFORTS: readonly ReasoningEffort[] = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'];

/** A client's level name as an IR level (`max`, Anthropic's top level, is `xhigh`); undefined when unknown. */
export function effortNamed(name: string): ReasoningEffort | undefined {
  const lower = name.toLowerCase();
  if (lower === 'max') return 'xhigh';
  return (EFFORTS as readonly string[]).includes(lower) ? (lower as ReasoningEffort) : undefined;
}

/**
 * A level a client named at `path` (`reasoning_effort`, `thinkingLevel`...) as an IR level; one this
 * gateway does not know is reported (warn) and read as no level.
 */
export function decodeEffort(name: string, path: string, unmapped: UnmappedField[], what = 'reasoning effort'): ReasoningEffort | undefined {
  const effort = effortNamed(name);
  if (effort === undefined) unmapped.push({ path, value: name, disposition: 'warn', reason: `${what} "${name}"` });
  return effort;
}

export function isReasoningOff(setting: ReasoningSetting): boolean {
  return setting.effort === 'none' || setting.budgetTokens === 0;
}

/** The level to send: the client's, else the one its budget is nearest; undefined = the model decides. */
export function effortOf(setting: ReasoningSetting): ReasoningEffort | undefined {
  if (setting.effort !== undefined) return setting.effort;
  const budget = setting.budgetTokens;
  if (budget === undefined) return undefined;
  if (budget <= 0) return 'none';
  for (const [below, effort] of BUDGET_LEVELS) if (budget < below) return effort;
  return 'high';
}

/** The budget to send: the client's, else its level's from the table; undefined = the model decides. */
export function budgetOf(setting: ReasoningSetting): number | undefined {
  if (setting.budgetTokens !== undefined) return setting.budgetTokens;
  return setting.effort === undefined ? undefined : EFFORT_BUDGET[setting.effort];
}
