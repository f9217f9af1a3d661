// The 36-cell protocol matrix (72 calls: each cell streaming and not) with the official SDKs as
// clients. Fails if any cell fails, naming it.
import { describe, expect, it } from 'vitest';
import { formatMatrix, runMatrix } from './run-matrix.ts';

describe('6 x 6 protocol matrix', () => {
  it('every ingress protocol reaches every egress protocol, streaming and not', async () => {
    const { cells, schemaViolations } = await runMatrix();
    const failed = cells.filter((c) => !c.ok).map((c) => `${c.ingress} -> ${c.egress}${c.stream ? ' (stream)' : ''}: ${c.detail}`);
    expect(failed, formatMatrix(cells)).toEqual([]);
    expect(schemaViolations).toEqual([]);
    expect(cells).toHaveLength(72);
  }, 120_000);
});
