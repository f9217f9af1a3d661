// A real gateway with one model per upstream protocol (`m-openai`, `m-responses`, `m-anthropic`,
// `m-gemini`, `m-bedrock`, `m-cohere`), every provider pointed at one scriptable mock upstream.
// Cross-protocol tests script the upstream's wire answer (built with the lane codec's own encoder,
// see `upstreamStream`/`upstreamJson`) and read what the gateway sent it.
import type { ChatResponse, ProtocolId, StreamEvent } from '../../server/ir/index.ts';
import { harnessOf, type Harness } from './gateway-harness.ts';
import { startMockUpstream, type ScriptedReply } from './mock-upstream.ts';
import { startSixLaneGateway } from './six-lane-gateway.ts';
import { codecOf, encodeStream } from './six-protocol-server.ts';

export { LANE_PROVIDER, laneModel, upstreamModelOf } from './six-lane-gateway.ts';

export type SixLaneHarness = Harness;

export interface SixLaneOptions {
  /** Extra top-level YAML for config.yaml (e.g. `media_fetch:`). */
  readonly extraYaml?: string;
  /** The upstream model name per lane (default `upstream-<protocol>`). */
  readonly upstreamModels?: Partial<Record<ProtocolId, string>>;
}

export async function startSixLaneHarness(options: SixLaneOptions = {}): Promise<SixLaneHarness> {
  const upstream = await startMockUpstream();
  const gateway = await startSixLaneGateway({
    upstreamUrl: upstream.url,
    workers: 1,
    ...(options.upstreamModels !== undefined && { upstreamModels: options.upstreamModels }),
    ...(options.extraYaml !== undefined && { extraYaml: [options.extraYaml] }),
  });
  return harnessOf(gateway, upstream);
}

/** A lane's streamed answer in its real wire form, encoded by that protocol's own stream encoder. */
export function upstreamStream(protocol: ProtocolId, events: readonly StreamEvent[]): ScriptedReply {
  const { headers, body } = encodeStream(protocol, events);
  return { headers, events: [typeof body === 'string' ? body : Buffer.from(body)] };
}

/** A lane's non-stream answer in its real wire form. */
export function upstreamJson(protocol: ProtocolId, response: ChatResponse): ScriptedReply {
  return { json: codecOf(protocol).encodeResponse(response, { streamUsage: true }).body };
}
