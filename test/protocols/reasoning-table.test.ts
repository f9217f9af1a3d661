// The one table between reasoning effort levels and token budgets (protocols/shared/reasoning.ts).
import { describe, expect, it } from 'vitest';
import { budgetOf, EFFORT_BUDGET, effortNamed, effortOf, isReasoningOff } from '../../server/protocols/shared/reasoning.ts';

describe('reasoning table', () => {
  it('gives each level its budget, and each budget back its level', () => {
    for (const effort of ['minimal', 'low', 'medium', 'high'] as const) {
      expect(budgetOf({ effort })).toBe(EFFORT_BUDGET[effort]);
      expect(effortOf({ budgetTokens: EFFORT_BUDGET[effort] })).toBe(effort);
    }
  });

  it.each([
    [1, 'minimal'],
    [2559, 'minimal'],
    [2560, 'low'],
    [6143, 'low'],
    [6144, 'medium'],
    [12287, 'medium'],
    [12288, 'high'],
    [31999, 'high'],
    [100000, 'high'],
    [0, 'none'],
  ])('a budget of %i is %s (nearest level; never xhigh)', (budgetTokens, effort) => {
    expect(effortOf({ budgetTokens })).toBe(effort);
  });

  it('keeps what the client said over the table, and leaves "the model decides" undecided', () => {
    expect(effortOf({ effort: 'xhigh', budgetTokens: 2000 })).toBe('xhigh');
    expect(budgetOf({ effort: 'xhigh', budgetTokens: 2000 })).toBe(2000);
    expect(effortOf({})).toBeUndefined();
    expect(budgetOf({ summary: 'auto' })).toBeUndefined();
  });

  it('reads level names from every protocol, and knows off', () => {
    expect(['HIGH', 'max', 'minimal', 'none', 'turbo'].map(effortNamed)).toEqual(['high', 'xhigh', 'minimal', 'none', undefined]);
    expect([isReasoningOff({ effort: 'none' }), isReasoningOff({ budgetTokens: 0 }), isReasoningOff({})]).toEqual([true, true, false]);
  });
});
