import type { ProtocolId, ReasoningEffort, ReasoningSetting, UnmappedField } from '../../ir/index.ts';
import { dropped } from '../shared/warnings.ts';
import type { TranslationWarning } from '../codec.ts';
import { decodeEffort, effortOf } from '../shared/reasoning.ts';
import { reasoningRefusedBy } from '../shared/reasoning-models.ts';

/** `reasoning_effort` as the IR setting; a level this gateway does not know is dropped with a warning. */
export function decodeReasoningEffort(value: unknown, unmapped: UnmappedField[]): ReasoningSetting | undefined {
  if (typeof value !== 'string') return undefined;
  const effort = decodeEffort(value, 'reasoning_effort', unmapped);
  return effort === undefined ? undefined : { effort };
}

/**
 * The setting as a level for `reasoning_effort`, a budget converted by the shared table. "The
 * model decides" sends nothing: the model's default level.
 */
export function encodeEffort(setting: ReasoningSetting | undefined, model: string, source: ProtocolId, warnings: TranslationWarning[]): string | undefined {
  if (setting === undefined) return undefined;
  if (reasoningRefusedBy(setting, model, warnings)) return undefined;
  return openAiLevel(effortOf(setting), source, warnings);
}

/**
 * "none" is a level only newer OpenAI models take (GPT-5.1 on; GPT-5 and the o-series refuse it).
 * An OpenAI client that names it knows its model; "off" said in another protocol's words is not
 * sent (warn), and the model's default applies.
 */
export function openAiLevel(effort: ReasoningEffort | undefined, source: ProtocolId, warnings: TranslationWarning[]): ReasoningEffort | undefined {
  if (effort !== 'none' || source === 'openai' || source === 'responses') return effort;
  warnings.push(dropped('reasoning', 'turning reasoning off (only some OpenAI models take "none"; the model\'s default applies)'));
  return undefined;
}
