// A six-lane harness for the whole test file (started before its tests, closed after), with an
// OpenAI client on it and the body of the last upstream request at hand.
import type OpenAI from 'openai';
import { afterAll, beforeAll } from 'vitest';
import { openaiAt } from './sdk-at.ts';
import { startSixLaneHarness, type SixLaneHarness, type SixLaneOptions } from './six-lane-harness.ts';

export interface SixLaneSuite {
  readonly harness: SixLaneHarness;
  readonly openai: OpenAI;
  /** The JSON body of the last request the upstream received. */
  sent(): Record<string, unknown>;
}

export function useSixLaneHarness(options: SixLaneOptions = {}): SixLaneSuite {
  let harness: SixLaneHarness | undefined;
  let openai: OpenAI | undefined;
  beforeAll(async () => {
    harness = await startSixLaneHarness(options);
    openai = openaiAt(harness.url);
  });
  afterAll(() => harness?.close());
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the six-lane harness is used before beforeAll ran');
    return value;
  };
  return {
    get harness() {
      return started(harness);
    },
    get openai() {
      return started(openai);
    },
    sent: () => started(harness).lastRequest().json as Record<string, unknown>,
  };
}
