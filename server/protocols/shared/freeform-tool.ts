/**
 * Codex-style freeform tools (Responses `type: "custom"`: the model writes raw text, e.g. a patch,
 * not JSON arguments). Other protocols only have JSON-argument functions, so a freeform tool travels
 * as a function with one string argument, `input`; its calls come back as `{"input": "..."}` and
 * are unwrapped into the Responses client's `custom_tool_call.input`.
 */
export const FREEFORM_ARGUMENT = 'input';

/** The JSON Schema of a freeform tool as a function: one required string, described by `note`. */
export function freeformParameters(note: string): Record<string, unknown> {
  return {
    type: 'object',
    properties: { [FREEFORM_ARGUMENT]: { type: 'string', description: note } },
    required: [FREEFORM_ARGUMENT],
    additionalProperties: false,
  };
}

/** A freeform call's raw text as the function arguments other protocols carry. */
export function freeformArguments(input: string): string {
  return JSON.stringify({ [FREEFORM_ARGUMENT]: input });
}

/** The raw text of a freeform call from its function arguments; arguments of another shape are passed on as they are. */
export function freeformInput(args: string): string {
  try {
    const parsed = JSON.parse(args) as unknown;
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
      const input = (parsed as Record<string, unknown>)[FREEFORM_ARGUMENT];
      if (typeof input === 'string') return input;
    }
  } catch {
    // not JSON: the model wrote the text itself
  }
  return args;
}
