import type { ProtocolId } from '../ir/index.ts';
import type { TranslationWarning } from '../protocols/codec.ts';

/** Hops keyed `from->to` (e.g. `openai->anthropic`), warnings keyed by kind. Plain data, summable across workers. */
export interface TranslationSnapshot {
  readonly hops: Readonly<Record<string, number>>;
  readonly warnings: Readonly<Record<string, number>>;
}

/**
 * Counts of cross-protocol hops by (from, to) pair and of translation warnings by kind: the
 * counter behind every `x-gateway-warnings` entry, read by /stats and metrics. Bounded: the keys
 * are the 36 protocol pairs and the codecs' warning kinds, never client input.
 */
export class TranslationStats {
  private readonly hops = new Map<string, number>();
  private readonly warnings = new Map<string, number>();

  recordHop(from: ProtocolId, to: ProtocolId): void {
    const key = `${from}->${to}`;
    this.hops.set(key, (this.hops.get(key) ?? 0) + 1);
  }

  recordWarnings(warnings: readonly TranslationWarning[]): void {
    for (const w of warnings) this.warnings.set(w.kind, (this.warnings.get(w.kind) ?? 0) + 1);
  }

  snapshot(): TranslationSnapshot {
    return { hops: Object.fromEntries(this.hops), warnings: Object.fromEntries(this.warnings) };
  }
}
