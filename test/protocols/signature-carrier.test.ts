// The tool-call id that carries a Gemini thoughtSignature through clients with no slot for it.
import { describe, expect, it } from 'vitest';
import { idWithSignature, plainCallId, splitCarriedId } from '../../server/protocols/shared/signature-carrier.ts';

const gemini = (value: string) => ({ origin: 'gemini' as const, value });

describe('signature carrier', () => {
  it.each([
    ['canonical base64 with padding', 'CiQB+/8Aq=='],
    ['canonical base64 without padding', 'CiQB+/8A'],
    ['base64 missing its padding (kept exactly)', 'CiQB+/8Aqw'],
    ['not base64 at all', 'sig with spaces & ünïcode'],
  ])('round-trips %s exactly, in the id alphabet', (_, value) => {
    const carried = idWithSignature('call_read_file_0', gemini(value));
    expect(carried).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(splitCarriedId(carried)).toEqual({ id: 'call_read_file_0', signature: gemini(value) });
    expect(plainCallId(carried)).toBe('call_read_file_0');
  });

  it('costs nothing beyond a short head for canonical base64', () => {
    const value = Buffer.alloc(300, 0xfb).toString('base64');
    expect(idWithSignature('x', gemini(value)).length).toBeLessThanOrEqual('gtsb_1_x_'.length + value.length);
  });

  it('keeps ids that contain its own separators intact', () => {
    const id = 'gtsb_3_abc_def';
    expect(splitCarriedId(idWithSignature(id, gemini('QUJD'))).id).toBe(id);
  });

  it("leaves ids alone when there is nothing to carry, or the signature is not Gemini's", () => {
    expect(idWithSignature('toolu_01', undefined)).toBe('toolu_01');
    expect(idWithSignature('toolu_01', { origin: 'anthropic', value: 'sig' })).toBe('toolu_01');
    expect(splitCarriedId('toolu_01')).toEqual({ id: 'toolu_01' });
    expect(splitCarriedId('gtsb_99_short')).toEqual({ id: 'gtsb_99_short' });
  });
});
