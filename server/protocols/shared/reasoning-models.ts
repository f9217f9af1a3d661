import type { ReasoningSetting } from '../../ir/index.ts';
import type { TranslationWarning } from '../codec.ts';
import { isReasoningOff } from './reasoning.ts';
import { dropped } from './warnings.ts';

/**
 * Model families known NOT to take reasoning settings: sending them one is a 400 (OpenAI's
 * "reasoning_effort is not supported with this model", Gemini 2.0's thinking config). Every model
 * released since reasoning became common takes them, so the list names the old families rather
 * than guessing the new ones: a model missing here gets the setting.
 */
const NO_REASONING = new RegExp([
  String.raw`(?:^|[/.:])gpt-(?:3\.5|4)`, // gpt-3.5, gpt-4, gpt-4o, gpt-4.1, gpt-4-turbo
  String.raw`chatgpt-4o`,
  String.raw`claude-(?:instant|2|3-haiku|3-sonnet|3-opus|3-5)`, // 3.7 and 4.x think
  String.raw`gemini-(?:1\.|2\.0-|pro\b)`,
  String.raw`command-(?:r|light|nightly|a-03|a-vision|a-translate)`,
].join('|'), 'i');

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
