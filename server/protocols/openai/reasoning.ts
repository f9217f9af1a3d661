import type { ReasoningSetting, UnmappedField } from '../../ir/index.ts';
import type { TranslationWarning } from '../codec.ts';
import { effortNamed, effortOf } from '../shared/reasoning.ts';
import { reasoningRefusedBy } from '../shared/reasoning-models.ts';

/** `reasoning_effort` as the IR setting; a level this gateway does not know is dropped with a warning. */
export function decodeReasoningEffort(value: unknown, unmapped: UnmappedField[]): ReasoningSetting | undefined {
  if (typeof value !== 'string') return undefined;
  const effort = effortNamed(value);
  if (effort === undefined) unmapped.push({ path: 'reasoning_effort', value, disposition: 'warn', reason: `reasoning effort "${value}"` });
  return effort === undefined ? undefined : { effort };
}

/**
 * The setting as a level for `reasoning_effort` (Chat) or `reasoning.effort` (Responses), a budget
 * converted by the shared table. "The model decides" sends nothing: the model's default level.
 */
export function encodeEffort(setting: ReasoningSetting | undefined, model: string, warnings: TranslationWarning[]): string | undefined {
  if (setting === undefined) return undefined;
  if (reasoningRefusedBy(setting, model, warnings)) return undefined;
  return effortOf(setting);
}
