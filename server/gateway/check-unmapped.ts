import type { ChatRequest } from '../ir/index.ts';
import type { TranslationWarning } from '../protocols/codec.ts';
import { unsupportedField } from '../protocols/shared/invalid-field.ts';

/**
 * Client fields the IR has no slot for, on a hop to another protocol: a field whose loss would
 * change the answer is refused with a 400 naming it; the others are dropped with a warning.
 */
export function checkUnmapped(request: ChatRequest, target: string): TranslationWarning[] {
  const warnings: TranslationWarning[] = [];
  for (const field of request.unmapped) {
    if (field.disposition === 'reject') throw unsupportedField(field.path, target, field.reason);
    warnings.push({ kind: 'dropped', path: field.path, message: `${field.reason} dropped: the ${target} protocol cannot express it` });
  }
  return warnings;
}
