// The agent suites' six-lane gateway (see test/support/six-lane-gateway.ts): every lane on a real
// reasoning model, since reasoning settings depend on the model, plus a Gemini 3 lane.
import type { RunningGateway } from '../../../server/app/start-gateway.ts';
import type { ProtocolId } from '../../../server/ir/index.ts';
import { startSixLaneGateway as startLanes } from '../../support/six-lane-gateway.ts';

/** The upstream model of the lane `m-<protocol>`. */
export const UPSTREAM_MODEL: Record<ProtocolId, string> = {
  openai: 'gpt-5',
  responses: 'gpt-5',
  anthropic: 'claude-sonnet-4-5',
  gemini: 'gemini-2.5-pro',
  bedrock: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
  cohere: 'command-a-reasoning-08-2025',
};

export function startSixLaneGateway(upstreamUrl: string): Promise<RunningGateway> {
  return startLanes({
    upstreamUrl,
    upstreamModels: UPSTREAM_MODEL,
    extraModels: ['  m-gemini-3: { provider: gemini, model: gemini-3-pro-preview }'],
    workers: 1,
  });
}
