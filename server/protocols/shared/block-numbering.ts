import type { StreamBlockStart, StreamEvent } from '../../ir/index.ts';

/**
 * IR block numbers for decoders whose wire numbers its blocks its own way (Cohere per kind,
 * Responses per output item): blocks are numbered in the order they start, and the open ones are
 * remembered so the end of a message can close what the upstream left open.
 */
export class BlockNumbering {
  private next = 0;
  private readonly open = new Set<number>();

  start(block: StreamBlockStart, out: StreamEvent[]): number {
    const index = this.next++;
    this.open.add(index);
    out.push({ type: 'block_start', index, block });
    return index;
  }

  /** Closes the block once; an unknown or already closed index emits nothing. */
  stop(index: number | undefined, out: StreamEvent[]): void {
    if (index === undefined || !this.open.delete(index)) return;
    out.push({ type: 'block_stop', index });
  }

  /** Closes every open block, in the order they started. */
  stopAll(out: StreamEvent[]): void {
    for (const index of this.open) out.push({ type: 'block_stop', index });
    this.open.clear();
  }
}
