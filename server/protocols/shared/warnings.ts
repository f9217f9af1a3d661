import type { TranslationWarning } from '../codec.ts';

/** A field the target protocol cannot express, dropped because dropping it does not change the answer. */
export function dropped(path: string, what: string): TranslationWarning {
  return { kind: 'dropped', path, message: `${what} dropped: the target protocol cannot express it` };
}

/** A value carried over in another form, e.g. a mid-conversation system message hoisted to the top. */
export function reshaped(path: string, message: string): TranslationWarning {
  return { kind: 'reshaped', path, message };
}
