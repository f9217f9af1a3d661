import type { UnmappedField } from '../../ir/index.ts';

/** What to do with a known field of the client's protocol that the IR has no slot for. */
export interface FieldRule {
  readonly disposition: 'reject' | 'warn';
  readonly reason: string;
  /** Values that change nothing (e.g. `n: 1`): the field is then ignored without a warning. */
  readonly isNeutral?: (value: unknown) => boolean;
}

/**
 * Collects the top-level fields of a request that the decoder did not map. Known protocol-only
 * fields follow their rule; fields unknown to us are dropped with a warning, never silently.
 */
export function collectUnmapped(body: object, mapped: ReadonlySet<string>, rules: Readonly<Record<string, FieldRule>>): UnmappedField[] {
  const unmapped: UnmappedField[] = [];
  for (const key of Object.keys(body)) {
    if (mapped.has(key)) continue;
    const value = (body as Record<string, unknown>)[key];
    if (value === undefined || value === null) continue;
    const rule = rules[key];
    if (rule === undefined) {
      unmapped.push({ path: key, value, disposition: 'warn', reason: 'unknown field' });
    } else if (!(rule.isNeutral?.(value) ?? false)) {
      unmapped.push({ path: key, value, disposition: rule.disposition, reason: rule.reason });
    }
  }
  return unmapped;
}
