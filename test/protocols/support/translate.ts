// Cross-protocol helpers: decode a client body in one protocol, encode it for a lane of another.
import type { ChatRequest } from '../../../server/ir/index.ts';
import type { EncodedRequest, LaneContext } from '../../../server/protocols/codec.ts';
import { codecOf } from './codecs.ts';
import type { FixtureProtocol } from './fixtures.ts';

export const ANTHROPIC_LANE: LaneContext = { model: 'claude-sonnet-4-5', defaultMaxTokens: 2048 };
export const OPENAI_LANE: LaneContext = { model: 'gpt-4.1', defaultMaxTokens: 2048 };

export function laneFor(protocol: FixtureProtocol): LaneContext {
  return protocol === 'anthropic' ? ANTHROPIC_LANE : OPENAI_LANE;
}

export function decode(protocol: FixtureProtocol, body: Record<string, unknown>): ChatRequest {
  return codecOf(protocol).decodeRequest(structuredClone(body), {});
}

export function translate(from: FixtureProtocol, to: FixtureProtocol, body: Record<string, unknown>): EncodedRequest {
  return codecOf(to).encodeRequest(decode(from, body), laneFor(to));
}

/** Runs `fn` and returns the GatewayFailure's error it threw; fails the test if it did not throw one. */
export function failureOf(fn: () => unknown): { kind: string; status: number; param?: string | null; code?: string | null; message: string } {
  try {
    fn();
  } catch (e) {
    const error = (e as { error?: { kind: string; status: number; message: string } }).error;
    if (error !== undefined) return error;
    throw e;
  }
  throw new Error('expected a GatewayFailure, nothing was thrown');
}
