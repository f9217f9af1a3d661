/**
 * functionResponse.response must be a JSON object, while the IR's tool results are text. Text
 * travels as `{"output": text}`, an error as `{"error": text}` (the keys Gemini's API reference
 * asks for); on the way back a response whose only member is a string `output`, `result` or
 * `error` is unwrapped, and any other object becomes its JSON text.
 */
export function wrapToolOutput(text: string, isError: boolean): Record<string, unknown> {
  return isError ? { error: text } : { output: text };
}

export function unwrapToolResponse(response: Record<string, unknown>): { text: string; isError: boolean } {
  const keys = Object.keys(response);
  const only = keys.length === 1 ? keys[0] : undefined;
  const value = only === undefined ? undefined : response[only];
  if (typeof value === 'string') {
    if (only === 'output' || only === 'result') return { text: value, isError: false };
    if (only === 'error') return { text: value, isError: true };
  }
  return { text: JSON.stringify(response), isError: false };
}
