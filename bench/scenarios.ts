// What is measured: the throughput scenarios, the targets of the unloaded latency probe and of the
// paced-stream run. A scenario is a client protocol, a target process and an upstream protocol.
import type { ProtocolId } from '../server/ir/index.ts';
import { clientRequest, type ClientRequest } from './client-requests.ts';
import type { GatewayVariant, TargetName } from './fleet.ts';
import { gatewayModel, pacedGatewayModel, pacedUpstreamModel, UPSTREAM_MODEL } from './gateway-config.ts';
import type { PeerName } from './peers.ts';
import type { Settings } from './settings.ts';

/** baseline: direct or minimal proxy; same: same protocol both sides (passthrough); cross: translated. */
export type PathKind = 'baseline' | 'same' | 'cross';

export interface Scenario {
  readonly name: string;
  readonly target: TargetName;
  readonly ingress: ProtocolId;
  readonly egress: ProtocolId;
  readonly stream: boolean;
  readonly kind: PathKind;
  /**
   * A comparison row (workers: 1, the four other protocols): run at the first connection count only,
   * shown for reference, not judged against the targets.
   */
  readonly comparison: boolean;
}

const LABEL: Record<TargetName, string> = {
  direct: 'direct',
  proxy: 'minimal proxy',
  gateway: 'gateway',
  'gateway-w1': 'gateway[workers=1]',
  'gateway-gov': 'gateway[governance]',
  portkey: 'Portkey',
  litellm: 'LiteLLM',
};

function scenario(target: TargetName, ingress: ProtocolId, egress: ProtocolId, stream: boolean, comparison = false): Scenario {
  const kind: PathKind = target === 'direct' || target === 'proxy' ? 'baseline' : ingress === egress ? 'same' : 'cross';
  const pair = kind === 'baseline' ? ingress : `${ingress}->${egress}`;
  return { name: `${LABEL[target]} ${pair}${stream ? ' stream' : ''}`, target, ingress, egress, stream, kind, comparison };
}

const MAIN_PAIRS: readonly [ProtocolId, ProtocolId][] = [
  ['openai', 'openai'],
  ['anthropic', 'anthropic'],
  ['openai', 'anthropic'],
  ['anthropic', 'openai'],
];
const OTHER_PROTOCOLS: readonly ProtocolId[] = ['responses', 'gemini', 'bedrock', 'cohere'];

export const THROUGHPUT_SCENARIOS: readonly Scenario[] = [false, true].flatMap((stream) => [
  scenario('direct', 'openai', 'openai', stream),
  scenario('proxy', 'openai', 'openai', stream),
  ...MAIN_PAIRS.map(([i, e]) => scenario('gateway', i, e, stream)),
  scenario('gateway-gov', 'openai', 'openai', stream),
  // workers: 1 at every connection count, stream and not: its CPU and memory are compared with the default's.
  scenario('gateway-w1', 'openai', 'openai', stream),
  ...(stream ? [] : OTHER_PROTOCOLS.map((p) => scenario('gateway', p, p, false, true))),
]);

/** The peers' rows (BENCH_PEERS): an OpenAI client to the mock's OpenAI route through each, stream and not. */
export function peerScenarios(peers: readonly PeerName[]): Scenario[] {
  return [false, true].flatMap((stream) => peers.map((p) => scenario(p, 'openai', 'openai', stream)));
}

/** Probed one request at a time, interleaved, non-stream and stream. */
export const PROBE_TARGETS: readonly Scenario[] = [false, true].flatMap((stream) => [
  scenario('direct', 'openai', 'openai', stream),
  scenario('proxy', 'openai', 'openai', stream),
  scenario('gateway', 'openai', 'openai', stream),
  scenario('gateway', 'openai', 'anthropic', stream),
]);

/** Paced streams (the mock writes N chunks M ms apart), direct against the gateway. */
export const PACED_TARGETS: readonly Scenario[] = [
  scenario('direct', 'openai', 'openai', true),
  scenario('proxy', 'openai', 'openai', true),
  scenario('gateway', 'openai', 'openai', true),
  scenario('gateway', 'openai', 'anthropic', true),
];

/** BENCH_FILTER keeps the gateway scenarios whose name contains it; baselines always run. */
export function selected<T extends Scenario>(list: readonly T[], filter: string | undefined): T[] {
  return list.filter((s) => filter === undefined || s.kind === 'baseline' || s.name.includes(filter));
}

/** The request a scenario's client sends; `paced` asks the mock for a paced stream. */
export function requestFor(s: Scenario, apiKey: string, paced?: Pick<Settings, 'pacedChunks' | 'pacedIntervalMs'>): ClientRequest {
  const model =
    s.kind === 'baseline'
      ? paced === undefined
        ? UPSTREAM_MODEL
        : pacedUpstreamModel(paced.pacedChunks, paced.pacedIntervalMs)
      : paced === undefined
        ? gatewayModel(s.egress)
        : pacedGatewayModel(s.egress);
  return clientRequest(s.ingress, model, s.stream, apiKey);
}

/** The gateway processes the selected sections need. */
export function gatewayVariantsFor(settings: Settings): Set<GatewayVariant> {
  const lists: Scenario[] = [
    ...(settings.sections.includes('throughput') ? selected(THROUGHPUT_SCENARIOS, settings.filter) : []),
    ...(settings.sections.includes('probe') ? selected(PROBE_TARGETS, settings.filter) : []),
    ...(settings.sections.includes('paced') ? selected(PACED_TARGETS, settings.filter) : []),
  ];
  const variants = new Set<GatewayVariant>(['gateway']); // always: its idle RSS is a target
  for (const s of lists) if (s.target === 'gateway' || s.target === 'gateway-w1' || s.target === 'gateway-gov') variants.add(s.target);
  return variants;
}
