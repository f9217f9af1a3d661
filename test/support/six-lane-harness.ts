// A real gateway with one model per upstream protocol (`m-openai`, `m-responses`, `m-anthropic`,
// `m-gemini`, `m-bedrock`, `m-cohere`), every provider pointed at one scriptable mock upstream.
// Cross-protocol tests script the upstream's wire answer (built with the lane codec's own encoder,
// see `upstreamStream`/`upstreamJson`) and read what the gateway sent it.
import { EVENTSTREAM_HEADERS } from '../../server/framing/eventstream-frame.ts';
import { SSE_HEADERS } from '../../server/framing/sse-format.ts';
import { WireBatch } from '../../server/framing/wire-chunks.ts';
import type { RunningGateway } from '../../server/app/start-gateway.ts';
import type { ChatResponse, ProtocolId, StreamEvent } from '../../server/ir/index.ts';
import { codecFor } from '../../server/protocols/registry.ts';
import { startMockUpstream, type MockUpstream, type RecordedRequest, type ScriptedReply } from './mock-upstream.ts';
import { startSixLaneGateway } from './six-lane-gateway.ts';

export { LANE_PROVIDER, laneModel, upstreamModelOf } from './six-lane-gateway.ts';

export interface SixLaneHarness {
  readonly gateway: RunningGateway;
  readonly upstream: MockUpstream;
  readonly url: string;
  lastRequest(): RecordedRequest;
  close(): Promise<void>;
}

export interface SixLaneOptions {
  /** Extra top-level YAML for config.yaml (e.g. `media_fetch:`). */
  readonly extraYaml?: string;
  /** The upstream model name per lane (default `upstream-<protocol>`). */
  readonly upstreamModels?: Partial<Record<ProtocolId, string>>;
}

export async function startSixLaneHarness(options: SixLaneOptions = {}): Promise<SixLaneHarness> {
  const upstream = await startMockUpstream();
  const gateway = await startSixLaneGateway({
    upstreamUrl: upstream.url, workers: 1,
    ...(options.upstreamModels !== undefined && { upstreamModels: options.upstreamModels }),
    ...(options.extraYaml !== undefined && { extraYaml: [options.extraYaml] }),
  });
  return {
    gateway,
    upstream,
    url: gateway.dataUrl,
    lastRequest() {
      const last = upstream.requests[upstream.requests.length - 1];
      if (last === undefined) throw new Error('the upstream received no request');
      return last;
    },
    async close() {
      await gateway.close();
      await upstream.close();
    },
  };
}

/** A lane's streamed answer in its real wire form, encoded by that protocol's own stream encoder. */
export function upstreamStream(protocol: ProtocolId, events: readonly StreamEvent[]): ScriptedReply {
  const codec = codecFor(protocol);
  if (codec === undefined) throw new Error(`no codec for ${protocol}`);
  const encoder = codec.createStreamEncoder({ streamUsage: true });
  const batch = new WireBatch();
  for (const event of events) batch.add(encoder.encode(event));
  const body = batch.take();
  return { headers: protocol === 'bedrock' ? { ...EVENTSTREAM_HEADERS } : { ...SSE_HEADERS }, events: [typeof body === 'string' ? body : Buffer.from(body)] };
}

/** A lane's non-stream answer in its real wire form. */
export function upstreamJson(protocol: ProtocolId, response: ChatResponse): ScriptedReply {
  const codec = codecFor(protocol);
  if (codec === undefined) throw new Error(`no codec for ${protocol}`);
  return { json: codec.encodeResponse(response, { streamUsage: true }).body };
}
