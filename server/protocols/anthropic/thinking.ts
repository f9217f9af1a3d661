import type { ReasoningSetting, UnmappedField } from '../../ir/index.ts';
import { decodeEffort } from '../shared/reasoning.ts';

interface AnthropicThinking {
  type?: string;
  budget_tokens?: number;
  display?: string | null;
}

/**
 * `thinking` (and the level in `output_config.effort`) as the IR setting, shared with Claude on
 * Bedrock, whose additionalModelRequestFields.thinking (or `reasoning_config`) has the same shape.
 * Claude shows its thinking unless `display: omitted`, so enabled thinking asks to see reasoning.
 */
export function decodeThinking(thinking: unknown, effortName: unknown, path: string, unmapped: UnmappedField[]): ReasoningSetting | undefined {
  let effort: ReasoningSetting['effort'];
  if (typeof effortName === 'string') effort = decodeEffort(effortName, 'output_config.effort', unmapped);
  const t = (thinking ?? undefined) as AnthropicThinking | undefined;
  const shown = t?.display === 'omitted' ? {} : { summary: 'auto' as const };
  switch (t?.type) {
    case undefined:
      return effort === undefined ? undefined : { effort };
    case 'disabled':
      return { effort: 'none' };
    case 'enabled':
      return { ...(typeof t.budget_tokens === 'number' && { budgetTokens: t.budget_tokens }), ...(effort !== undefined && { effort }), ...shown };
    case 'adaptive':
      return { ...(effort !== undefined && { effort }), ...shown };
    default:
      unmapped.push({ path, value: thinking, disposition: 'warn', reason: `thinking mode "${String(t?.type)}"` });
      return effort === undefined ? undefined : { effort };
  }
}
