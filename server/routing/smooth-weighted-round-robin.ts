/**
 * Smooth weighted round robin (nginx's algorithm): with weights 3 and 1 the order is a a b a,
 * never a a a b, so load spreads evenly, and for a given state the pick is deterministic.
 * Members not eligible this time are skipped without disturbing the others' shares.
 */
export class SmoothWeightedRoundRobin {
  private readonly weights: readonly number[];
  private readonly current: number[];

  /** `current`: each member's place carried over from a rotation this one replaces (a configuration change). */
  constructor(weights: readonly number[], current?: readonly number[]) {
    this.weights = weights;
    this.current = weights.map((_, i) => current?.[i] ?? 0);
  }

  currentOf(index: number): number {
    return this.current[index] ?? 0;
  }

  /** Index of the next member among the eligible ones, or undefined when none is eligible. */
  pick(eligible: (index: number) => boolean): number | undefined {
    let best: number | undefined;
    let total = 0;
    for (let i = 0; i < this.weights.length; i++) {
      if (!eligible(i)) continue;
      const weight = this.weights[i]!;
      this.current[i]! += weight;
      total += weight;
      if (best === undefined || this.current[i]! > this.current[best]!) best = i;
    }
    if (best !== undefined) this.current[best]! -= total;
    return best;
  }
}
