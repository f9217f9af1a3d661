// OpenAI Chat Completions stream events (real wire shape), for scripting the mock upstream.
const chunk = (delta: Record<string, unknown>, finish: string | null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-test', object: 'chat.completion.chunk', created: 1763820003, model: 'gpt-4.1-mini-2025-04-14', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;

/** A role chunk, one content chunk per piece, a finishing chunk and [DONE]. */
export function openaiStreamEvents(pieces: readonly string[]): string[] {
  return [chunk({ role: 'assistant', content: '' }, null), ...pieces.map((p) => chunk({ content: p }, null)), chunk({}, 'stop'), 'data: [DONE]\n\n'];
}
