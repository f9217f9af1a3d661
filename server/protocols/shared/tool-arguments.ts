import { GatewayFailure, gatewayError } from '../../ir/index.ts';
import { invalidField } from './invalid-field.ts';

/**
 * Protocols that carry tool arguments as a JSON object (Anthropic, Gemini, Bedrock) need the text
 * parsed; an empty string is the empty object (models stream "" for no-argument calls). Who is to
 * blame for bad JSON decides the status: the client's history (400) or the upstream's answer (502).
 */
export function argumentsToObject(text: string, path: string, blame: 'client' | 'upstream' = 'client'): Record<string, unknown> {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  const message = 'tool call arguments are not a JSON object, so the target protocol cannot carry them';
  if (blame === 'client') throw invalidField(path, message);
  throw new GatewayFailure(gatewayError('server', `${path}: the upstream's ${message}`, { status: 502, code: 'untranslatable_upstream_response' }));
}

export function argumentsFromObject(value: unknown): string {
  return JSON.stringify(value ?? {});
}
