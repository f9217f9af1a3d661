// Reading text out of untrusted request bodies. OpenAI and Anthropic share the shapes used here:
// `{role, content}` where content is a string or an array of parts, text parts being `{type:'text', text}`.

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((part): part is { type: 'text'; text: string } => isRecord(part) && part.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text)
    .join('\n');
}

/** Text of the latest user message that has any (tool results alone carry none). */
export function lastUserText(messages: unknown[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (!isRecord(message) || message.role !== 'user') continue;
    const text = contentText(message.content);
    if (text !== '') return text;
  }
  return '';
}

/** Text of the final message when a user wrote it, else undefined (e.g. it is a tool result). */
export function finalUserText(messages: unknown[]): string | undefined {
  const last = messages.at(-1);
  return isRecord(last) && last.role === 'user' ? contentText(last.content) : undefined;
}

/** All prompt text, for the demo's rough token estimate. */
export function promptText(messages: unknown[], system?: unknown): string {
  const parts = messages.map((message) => (isRecord(message) ? contentText(message.content) : ''));
  return [contentText(system), ...parts].filter((text) => text !== '').join('\n');
}
