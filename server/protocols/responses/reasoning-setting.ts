import type { ProtocolId, ReasoningSetting, UnmappedField } from '../../ir/index.ts';
import { openAiLevel } from '../openai/reasoning.ts';
import type { TranslationWarning } from '../codec.ts';
import { decodeEffort, effortOf, isReasoningOff } from '../shared/reasoning.ts';
import { reasoningRefusedBy } from '../shared/reasoning-models.ts';

interface ResponsesReasoning {
  effort?: string | null;
  summary?: string | null;
  /** Deprecated spelling of `summary`. */
  generate_summary?: string | null;
}

const SUMMARIES = new Set(['auto', 'concise', 'detailed']);

/** `reasoning` ({effort, summary}) as the IR setting. */
export function decodeReasoningSetting(value: unknown, unmapped: UnmappedField[]): ReasoningSetting | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const reasoning = value as ResponsesReasoning;
  let effort: ReasoningSetting['effort'];
  if (typeof reasoning.effort === 'string') effort = decodeEffort(reasoning.effort, 'reasoning.effort', unmapped);
  const asked = reasoning.summary ?? reasoning.generate_summary;
  const summary = typeof asked === 'string' && SUMMARIES.has(asked) ? (asked as ReasoningSetting['summary']) : undefined;
  if (effort === undefined && summary === undefined) return undefined;
  return { ...(effort !== undefined && { effort }), ...(summary !== undefined && { summary }) };
}

/** The setting as `reasoning`: the level by the shared table, and the summary the client wants to see. */
export function encodeReasoningSetting(
  setting: ReasoningSetting | undefined,
  model: string,
  source: ProtocolId,
  warnings: TranslationWarning[],
): ResponsesReasoning | undefined {
  if (setting === undefined || reasoningRefusedBy(setting, model, warnings)) return undefined;
  const effort = openAiLevel(effortOf(setting), source, warnings);
  const out: ResponsesReasoning = {
    ...(effort !== undefined && { effort }),
    ...(setting.summary !== undefined && effort !== 'none' && !isReasoningOff(setting) && { summary: setting.summary }),
  };
  return Object.keys(out).length > 0 ? out : undefined;
}
