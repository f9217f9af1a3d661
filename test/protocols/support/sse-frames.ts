// A deliberately naive reader for well-formed fixture and encoder text (LF line ends, one blank
// line between events). It is independent of server/framing/sse-parser.ts, which is under test.
export interface Frame {
  readonly event: string | undefined;
  readonly data: string;
}

export function sseFrames(text: string): Frame[] {
  const frames: Frame[] = [];
  for (const block of text.split('\n\n')) {
    if (block === '') continue;
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('event: ')) event = line.slice('event: '.length);
      else if (line.startsWith('data: ')) data.push(line.slice('data: '.length));
      else if (!line.startsWith(':')) throw new Error(`unexpected SSE line: ${JSON.stringify(line)}`);
    }
    frames.push({ event, data: data.join('\n') });
  }
  return frames;
}
