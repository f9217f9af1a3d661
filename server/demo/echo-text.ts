// This is a demo upstream, not a model: it answers by quoting the user so `make run` works
// end to end with no API keys. Nothing here pretends to understand the prompt.

const QUOTE_LIMIT = 200;

export function demoReplyText(userText: string): string {
  const codePoints = Array.from(userText);
  const quoted = codePoints.length > QUOTE_LIMIT ? codePoints.slice(0, QUOTE_LIMIT).join('') + '…' : userText;
  return `Demo reply to: "${quoted}"`;
}

/** Whether the user's words ask for a tool, which makes the demo answer with a tool call. */
export function asksForTool(userText: string): boolean {
  return /\btools?\b/i.test(userText);
}
