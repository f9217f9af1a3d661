import type { ContentBlock } from './blocks.ts';

/** Normalised reason the model stopped; `raw` on Finish keeps what the upstream really said. */
export type FinishReason = 'stop' | 'stop_sequence' | 'length' | 'tool_calls' | 'content_filter' | 'refusal' | 'pause' | 'context_exceeded' | 'error' | 'other';

export interface Finish {
  readonly reason: FinishReason;
  readonly raw: string | null;
  /** The stop sequence that matched, when the upstream says which. */
  readonly stopSequence?: string | null;
}

/**
 * Token usage in one canonical form: `inputTokens` counts every prompt token including cache reads
 * and writes (OpenAI's convention); `outputTokens` includes reasoning. Codecs convert to and from
 * their protocol's convention (Anthropic excludes cache tokens from input_tokens).
 */
export interface Usage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
  readonly reasoningTokens: number;
}

export interface ChatResponse {
  readonly id: string;
  readonly model: string;
  readonly content: readonly ContentBlock[];
  readonly finish: Finish;
  readonly usage: Usage | null;
  /** Seconds since the epoch when the upstream created the response, if it said. */
  readonly created?: number;
}

export const ZERO_USAGE: Usage = Object.freeze({
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
});
