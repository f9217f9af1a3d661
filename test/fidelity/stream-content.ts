// A stream's IR events folded into the content they carry, so a streamed answer can be compared
// with a non-stream one.
import type { ContentBlock, Finish, StreamEvent } from '../../server/ir/index.ts';

export function streamContent(events: readonly StreamEvent[]): ContentBlock[] {
  const blocks = new Map<number, { kind: string; name: string; id: string; text: string }>();
  for (const e of events) {
    if (e.type === 'block_start')
      blocks.set(e.index, {
        kind: e.block.type,
        name: e.block.type === 'tool_call' ? e.block.name : '',
        id: e.block.type === 'tool_call' ? e.block.id : '',
        text: '',
      });
    else if (e.type === 'block_delta') {
      const b = blocks.get(e.index);
      if (b === undefined) continue;
      if (e.delta.type === 'text' || e.delta.type === 'reasoning') b.text += e.delta.text;
      else if (e.delta.type === 'tool_arguments') b.text += e.delta.partialJson;
    }
  }
  return [...blocks.values()].flatMap((b): ContentBlock[] => {
    if (b.kind === 'text') return [{ type: 'text', text: b.text }];
    if (b.kind === 'tool_call') return [{ type: 'tool_call', id: b.id, name: b.name, arguments: b.text }];
    return [];
  });
}

/** How the stream said it finished ('stop' when it did not say). */
export function streamFinish(events: readonly StreamEvent[]): Finish {
  for (const e of events) if (e.type === 'finish') return e.finish;
  return { reason: 'stop', raw: null };
}

/** The events' error, if the stream carried one. */
export function streamError(events: readonly StreamEvent[]): string | undefined {
  const e = events.find((x) => x.type === 'error');
  return e?.type === 'error' ? `${e.error.kind}: ${e.error.message}` : undefined;
}
