import { holdsAt, isPlainStringContent } from '../shared/plain-json-text.ts';
import type { OpenAIStreamPayload } from './wire.ts';

/**
 * Most events of a Chat Completions stream are text chunks that differ from one another only in
 * their text: the id, created, model, fingerprint, index, logprobs and finish_reason around it
 * repeat byte for byte. Once one such chunk has been parsed, the bytes before its text and after it
 * are kept; a later event made of the same two pieces around a string that needs no unescaping is
 * then the same JSON document with another text, and is read with two comparisons and a scan of
 * its text instead of a JSON parse. Anything else (another field, spacing, an escape anywhere, a
 * per-event field such as OpenAI's `obfuscation`) does not match and goes to JSON.parse as before,
 * so what is accepted and what it means is exactly what JSON.parse would make of it.
 */
export class ContentChunkTemplate {
  /** The learned chunk up to and with the opening quote of its text, and from the closing quote on. */
  private head: string | undefined;
  private tail: string | undefined;

  /**
   * A chunk just parsed: kept as the template when all it carries is choice 0's text (no refusal,
   * reasoning, tool calls, finish, usage or error), with the text written as is where the one
   * `"content"` member of a document without a backslash says it is.
   */
  learn(data: string, chunk: OpenAIStreamPayload): void {
    if (this.head !== undefined || chunk.error !== undefined || (chunk.usage !== undefined && chunk.usage !== null)) return;
    const choice = chunk.choices?.[0];
    if (choice === undefined || (choice.finish_reason !== null && choice.finish_reason !== undefined)) return;
    const delta = choice.delta as Record<string, unknown> | undefined;
    if (delta === undefined || delta === null || typeof delta.content !== 'string' || delta.content === '') return;
    if (!absentOrEmpty(delta.refusal) || !absentOrEmpty(delta.reasoning_content) || (delta.tool_calls !== undefined && delta.tool_calls !== null)) return;
    // Without a backslash every member name is written as itself, so a single `"content"` is the
    // delta's, and its value written as is must sit right after it.
    if (data.includes('\\')) return;
    const member = data.indexOf('"content"');
    if (member === -1 || data.indexOf('"content"', member + 1) !== -1) return;
    const textStart = member + '"content":"'.length;
    if (!data.startsWith('"content":"', member) || !data.startsWith(delta.content, textStart)) return;
    const textEnd = textStart + delta.content.length;
    if (data.charCodeAt(textEnd) !== QUOTE) return;
    this.head = data.slice(0, textStart);
    this.tail = data.slice(textEnd);
  }

  /** The text of a chunk that is the template with another text; undefined when it is not. */
  text(data: string): string | undefined {
    const { head, tail } = this;
    if (head === undefined || tail === undefined) return undefined;
    const end = data.length - tail.length;
    if (end < head.length || !holdsAt(data, 0, head) || !holdsAt(data, end, tail) || !isPlainStringContent(data, head.length, end)) return undefined;
    return data.slice(head.length, end);
  }
}

const QUOTE = 0x22;

function absentOrEmpty(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}
