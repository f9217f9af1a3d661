// Server-sent-events framing as the providers write it: one `data:` line per event, blank line after.

/** An unnamed event (OpenAI Chat style): `data: <json>\n\n`. */
export function sseData(payload: unknown): string {
  return `data: ${JSON.stringify(payload)}\n\n`;
}

/** A named event (Anthropic style): `event: <name>\ndata: <json>\n\n`. */
export function sseEvent(name: string, payload: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(payload)}\n\n`;
}

/** OpenAI Chat's end-of-stream sentinel. */
export const SSE_DONE = 'data: [DONE]\n\n';
