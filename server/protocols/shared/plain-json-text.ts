// What the streams' parse-free fast paths (Anthropic's text delta, OpenAI's content chunk template)
// check of an event's text: fixed parts where they must be, and a string written as is.

/**
 * Whether `text` holds `part` at `at`. Cut and compared whole (a native comparison): startsWith and
 * endsWith walk a string a character at a time, which made these checks cost almost half of the
 * JSON.parse they avoid.
 */
export function holdsAt(text: string, at: number, part: string): boolean {
  return text.slice(at, at + part.length) === part;
}

/**
 * Whether `text[start, end)` is a JSON string's content that reads as itself: no quote (the string
 * would end early), no backslash (an escape) and no raw control character.
 */
export function isPlainStringContent(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 || c === 0x5c || c < 0x20) return false;
  }
  return true;
}
