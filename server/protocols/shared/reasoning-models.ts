import type { ProtocolId, ReasoningSetting } from '../../ir/index.ts';
import type { TranslationWarning } from '../codec.ts';
import { isReasoningOff } from './reasoning.ts';
import { dropped } from './warnings.ts';

/**
 * Model families known NOT to take reasoning settings: sending them one is a 400 (OpenAI's
 * "reasoning_effort is not supported with this model", Gemini 2.0's thinking config). Every model
 * released since reasoning became common takes them, so the list names the old families rather
 * than guessing the new ones: a model missing here gets the setting.
 */
const NO_REASONING = new RegExp(
  [
    String.raw`(?:^|[/.:])gpt-(?:3\.5|4)`, // gpt-3.5, gpt-4, gpt-4o, gpt-4.1, gpt-4-turbo
    'chatgpt-4o',
    'claude-(?:instant|2|3-haiku|3-sonnet|3-opus|3-5)', // 3.7 and 4.x think
    String.raw`gemini-(?:1\.|2\.0-|pro\b)`,
    'command-(?:r|light|nightly|a-03|a-vision|a-translate)',
  ].join('|'),
  'i',
);

export function cannotReason(model: string): boolean {
  return NO_REASONING.test(model);
}

/**
 * True when the lane's model cannot take a reasoning setting, so none is sent: with a warning,
 * unless the client turned reasoning off (which such a model already is).
 */
export function reasoningRefusedBy(setting: ReasoningSetting, model: string, warnings: TranslationWarning[]): boolean {
  if (!cannotReason(model)) return false;
  if (!isReasoningOff(setting)) warnings.push(dropped('reasoning', `the reasoning setting (${model} does not reason)`));
  return true;
}

/**
 * OpenAI models that always reason: o1, o3, o4-mini, codex-mini and the GPT-5 family (gpt-5-chat
 * is a chat model and takes sampling). They refuse sampling other than the defaults with a 400
 * ("Unsupported value: 'temperature' does not support 0 with this model. Only the default (1)
 * value is supported."); GPT-5.1 and later take temperature and top_p with reasoning effort "none".
 */
const OPENAI_REASONING = /(?:^|[/.:])(?:o[134](?:-|$)|codex-mini|gpt-5(?!-chat))/i;

export function isOpenAiReasoningModel(model: string): boolean {
  return OPENAI_REASONING.test(model);
}

/** The sampling an OpenAI Chat or Responses lane is sent. */
export interface OpenAiSampling {
  readonly temperature?: number;
  readonly topP?: number;
}

/** OpenAI's sampling defaults: a reasoning model takes these values only. */
const SAMPLING_DEFAULTS = { temperature: 1, top_p: 1 } as const;

/**
 * A translated request's temperature and top_p for an OpenAI lane (`target`). A reasoning model
 * gets neither (each value but the default, which changes nothing, with a warning) unless the
 * request turns reasoning off with effort "none", which is when newer ones take them. A request of
 * the lane's own protocol keeps them: its client chose them for that API (and such requests are
 * passed through, not encoded, on the serving path).
 */
export function openAiSampling(
  request: OpenAiSampling & { readonly source: ProtocolId },
  target: ProtocolId,
  model: string,
  effort: string | undefined,
  warnings: TranslationWarning[],
): OpenAiSampling {
  const { temperature, topP } = request;
  if (request.source === target || !isOpenAiReasoningModel(model) || effort === 'none') {
    return { ...(temperature !== undefined && { temperature }), ...(topP !== undefined && { topP }) };
  }
  const drop = (field: keyof typeof SAMPLING_DEFAULTS, value: number | undefined) => {
    if (value === undefined || value === SAMPLING_DEFAULTS[field]) return;
    warnings.push({
      kind: 'dropped',
      path: field,
      message: `${field} ${value} dropped: ${model} is a reasoning model and takes only the default (${SAMPLING_DEFAULTS[field]})`,
    });
  };
  drop('temperature', temperature);
  drop('top_p', topP);
  return {};
}
