import type { StreamBlockStart, StreamEvent } from '../../ir/index.ts';

/**
 * Assigns IR block indices for protocols whose streams have no explicit block boundaries (OpenAI
 * Chat sends bare deltas). A delta for a different block than the open one closes the open one,
 * so the IR stream has one open block at a time, as Anthropic's grammar demands. A server that
 * interleaves parallel tool calls (tool 0, tool 1, tool 0) gets its late deltas delivered to the
 * block they belong to, which is already closed; encoders append by index, so nothing is lost.
 */
export class BlockTracker {
  private nextIndex = 0;
  private openKey: string | undefined;
  private openIndex = -1;
  /** Keys whose block may be resumed after closing (tool calls are identified by their index). */
  private readonly resumable = new Map<string, number>();

  /** Index of the block for `key`, opening it (and closing the previous one) if needed. */
  ensure(key: string, start: StreamBlockStart, out: StreamEvent[]): number {
    if (this.openKey === key) return this.openIndex;
    const earlier = start.type === 'tool_call' ? this.resumable.get(key) : undefined;
    if (earlier !== undefined) return earlier;
    this.close(out);
    if (start.type === 'tool_call') this.resumable.set(key, this.nextIndex);
    this.openKey = key;
    this.openIndex = this.nextIndex++;
    out.push({ type: 'block_start', index: this.openIndex, block: start });
    return this.openIndex;
  }

  close(out: StreamEvent[]): void {
    if (this.openKey === undefined) return;
    out.push({ type: 'block_stop', index: this.openIndex });
    this.openKey = undefined;
  }
}
