// Every failover scenario against a lane of each of the six egress protocols, with the official SDK
// of the lane's own protocol (the same-protocol path) and of another protocol (the translated
// path) as the client. A fault before any content must fail over to the pool's second lane: the
// client sees one clean answer from it, named in x-gateway-lane. A fault after content cannot be
// retried: the client's stream ends in its protocol's error (the SDK raises or the text is cut).
// Each scenario checks its effect on the failing lane's breaker: a lane fault, or capacity with its
// cooldown. The mock upstream speaks each protocol's real wire format (test/support/protocol-wire.ts).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ProtocolId } from '../../server/ir/index.ts';
import { PROTOCOL_IDS } from '../../server/protocols/registry.ts';
import type { CellCounters } from '../../server/routing/breaker-cell.ts';
import { sdkClients, type SdkCall } from '../matrix/sdk-clients.ts';
import { startHarness, type Harness } from '../support/gateway-harness.ts';
import type { ScriptedReply } from '../support/mock-upstream.ts';
import { streamHeaders, wireErrorStream, wireHttpError, wireMalformed, wireStream } from '../support/protocol-wire.ts';
import { RecordCollector } from '../support/record-collector.ts';
import { FakeClock } from '../routing/fake-clock.ts';

const TIMEOUT_MS = 500; // first_byte_ms and idle_ms of every lane: short, with room for a loaded machine
const RATE_LIMIT_COOLDOWN_MS = 15_000;
const BACKUP_TEXT = 'from the backup lane';
const PRIMARY_TEXT = 'primary lane answer';

const PROVIDER: Record<ProtocolId, string> = {
  openai: 'openai',
  responses: 'openai-responses',
  anthropic: 'anthropic',
  gemini: 'gemini',
  bedrock: 'bedrock',
  cohere: 'cohere',
};

type Effect = { kind: 'laneFaults' } | { kind: 'capacityFaults'; cooldownMs: number };
interface Scenario {
  readonly name: string;
  /** The failing lane's reply, in protocol P's wire format. */
  readonly reply: (p: ProtocolId) => ScriptedReply;
  /** Content reached the client before the fault: no failover. */
  readonly afterCommit: boolean;
  readonly effect: Effect;
}

const stream = (p: ProtocolId, extra: Partial<Extract<ScriptedReply, { events: unknown }>>, events?: (string | Buffer)[]): ScriptedReply => {
  const s = wireStream(p, PRIMARY_TEXT, `${p}-a-up`);
  return { headers: s.headers, events: events ?? [...s.beforeContent, ...s.fromContent], ...extra };
};
const lifecycle = (p: ProtocolId) => wireStream(p, PRIMARY_TEXT).beforeContent.length;
const laneFault: Effect = { kind: 'laneFaults' };

const SCENARIOS: Scenario[] = [
  {
    name: '429 with Retry-After',
    reply: (p) => wireHttpError(p, 'rate_limit', 429, { 'retry-after': '30' }),
    afterCommit: false,
    effect: { kind: 'capacityFaults', cooldownMs: 30_000 },
  },
  {
    name: '429 without Retry-After',
    reply: (p) => wireHttpError(p, 'rate_limit', 429),
    afterCommit: false,
    effect: { kind: 'capacityFaults', cooldownMs: RATE_LIMIT_COOLDOWN_MS },
  },
  { name: '500', reply: (p) => wireHttpError(p, 'server', 500), afterCommit: false, effect: laneFault },
  { name: '503', reply: (p) => wireHttpError(p, 'overloaded', 503), afterCommit: false, effect: laneFault },
  { name: 'connection reset', reply: () => ({ fault: 'reset' }), afterCommit: false, effect: laneFault },
  { name: 'hang', reply: () => ({ fault: 'hang' }), afterCommit: false, effect: laneFault },
  { name: 'slow first token', reply: (p) => stream(p, { pauseAfter: lifecycle(p), pauseMs: TIMEOUT_MS * 4 }), afterCommit: false, effect: laneFault },
  { name: 'cut before content', reply: (p) => stream(p, { cutAfter: lifecycle(p) }), afterCommit: false, effect: laneFault },
  {
    name: 'malformed event',
    reply: (p) => stream(p, {}, [...wireStream(p, PRIMARY_TEXT).beforeContent, wireMalformed(p)]),
    afterCommit: false,
    effect: laneFault,
  },
  {
    name: 'in-band error before content',
    reply: (p) => stream(p, {}, wireErrorStream(p, 'overloaded', false, PRIMARY_TEXT)),
    afterCommit: false,
    effect: laneFault,
  },
  // Cohere's in-band error is a `message-end` with finish_reason ERROR and a message: it cannot say
  // "rate limited", so it is a lane fault there; every other protocol names the throttling.
  {
    name: 'in-band throttling before content',
    reply: (p) => stream(p, {}, wireErrorStream(p, 'rate_limit', false, PRIMARY_TEXT)),
    afterCommit: false,
    effect: { kind: 'capacityFaults', cooldownMs: RATE_LIMIT_COOLDOWN_MS },
  },
  { name: 'cut after content', reply: (p) => stream(p, { cutAfter: lifecycle(p) + 1 }), afterCommit: true, effect: laneFault },
  { name: 'stall after content', reply: (p) => stream(p, { pauseAfter: lifecycle(p) + 1, pauseMs: TIMEOUT_MS * 4 }), afterCommit: true, effect: laneFault },
  { name: 'in-band error after content', reply: (p) => stream(p, {}, wireErrorStream(p, 'server', true, PRIMARY_TEXT)), afterCommit: true, effect: laneFault },
];

const CLIENTS = ['same', 'translated'] as const;
const clientProtocol = (p: ProtocolId, client: (typeof CLIENTS)[number]): ProtocolId => (client === 'same' ? p : p === 'openai' ? 'anthropic' : 'openai');
const poolName = (p: ProtocolId, scenario: number, client: string) => `f-${p}-${scenario}-${client}`;

let h: Harness;
let sdks: Record<ProtocolId, SdkCall>;
const clock = new FakeClock();
const records = new RecordCollector();
/** x-gateway-lane of the gateway's last answer: the fetch-based SDKs through a wrapped fetch, Bedrock's through its middleware. */
let lastLaneHeader: string | null | undefined;
const realFetch = globalThis.fetch;

beforeAll(async () => {
  const timeouts = `timeouts: { first_byte_ms: ${TIMEOUT_MS}, idle_ms: ${TIMEOUT_MS} }`;
  const models = PROTOCOL_IDS.flatMap((p) => ['a', 'b'].map((l) => `  ${p}-${l}: { provider: ${PROVIDER[p]}, model: ${p}-${l}-up, ${timeouts} }\n`)).join('');
  const pools = PROTOCOL_IDS.flatMap((p) =>
    SCENARIOS.flatMap((_, i) => CLIENTS.map((c) => `  ${poolName(p, i, c)}: { members: [ { model: ${p}-a, weight: 10 }, { model: ${p}-b, weight: 1 } ] }\n`)),
  ).join('');
  h = await startHarness({
    clock,
    sixProtocols: true,
    observers: [records],
    extraModelsYaml: models,
    breakerYaml: `breaker: { consecutive_failures: 3, open_ms: 10000, jitter: 0, rate_limit_cooldown_ms: ${RATE_LIMIT_COOLDOWN_MS} }\n`,
    extraYaml: `pools:\n${pools}`,
  });
  // Wrapped before the SDKs are made: some keep the fetch they find at construction.
  globalThis.fetch = async (input, init) => {
    const res = await realFetch(input, init);
    if (String(input instanceof Request ? input.url : input).startsWith(h.url)) lastLaneHeader = res.headers.get('x-gateway-lane');
    return res;
  };
  sdks = sdkClients(h.url, { onBedrockHeaders: (headers) => (lastLaneHeader = headers['x-gateway-lane'] ?? null) });
}, 60_000);
afterAll(async () => {
  globalThis.fetch = realFetch;
  await h.close();
});
beforeEach(() => {
  h.upstream.reset();
  records.clear();
  lastLaneHeader = undefined;
});

const laneA = (pool: string, p: ProtocolId) =>
  h.gateway.routing
    .snapshot()
    .find((s) => s.pool === pool)!
    .lanes.find((l) => l.lane === `${p}-a`)!;
const triedLanes = () => h.upstream.requests.map((r) => (`${r.path} ${r.rawBody.toString('utf8')}`.includes('-b-up') ? 'b' : 'a'));

describe.each(PROTOCOL_IDS)('a %s lane', (p) => {
  describe.each(CLIENTS)('%s-protocol client', (client) => {
    it.each(SCENARIOS.map((s, i) => [s.name, i] as const))('%s', async (_, index) => {
      const scenario = SCENARIOS[index]!;
      const pool = poolName(p, index, client);
      const backup = wireStream(p, BACKUP_TEXT, `${p}-b-up`);
      h.upstream.enqueue(scenario.reply(p), { headers: streamHeaders(p), events: [...backup.beforeContent, ...backup.fromContent] });
      const before = laneA(pool, p).counters;

      const outcome = await sdks[clientProtocol(p, client)](pool, true).then(
        (text) => ({ text }),
        (error: unknown) => ({ error }),
      );

      await records.atLeast(1); // the record is handed over just after the response ends: it may trail the SDK's read
      const record = records.records.at(-1);
      if (!scenario.afterCommit) {
        expect(outcome).toEqual({ text: BACKUP_TEXT }); // one clean answer, from the next lane
        expect(triedLanes()).toEqual(['a', 'b']);
        expect(record?.lane).toBe(`${p}-b`);
        expect(lastLaneHeader).toBe(`${p}-b`);
      } else {
        // The protocol's error after commit: the SDK raises, or the answer is visibly cut short.
        if ('text' in outcome) expect(outcome.text).not.toBe(PRIMARY_TEXT);
        if ('text' in outcome) expect(PRIMARY_TEXT.startsWith(outcome.text) && outcome.text !== '').toBe(true);
        expect(triedLanes()).toEqual(['a']);
        expect(record?.lane).toBe(`${p}-a`);
        expect(lastLaneHeader).toBe(`${p}-a`);
      }

      const effect: Effect = p === 'cohere' && scenario.name === 'in-band throttling before content' ? laneFault : scenario.effect;
      const after = laneA(pool, p);
      const delta = (k: keyof CellCounters) => after.counters[k] - before[k];
      expect({ laneFaults: delta('laneFaults'), capacityFaults: delta('capacityFaults'), successes: delta('successes') }).toEqual({
        laneFaults: effect.kind === 'laneFaults' ? 1 : 0,
        capacityFaults: effect.kind === 'capacityFaults' ? 1 : 0,
        successes: 0,
      });
      if (effect.kind === 'capacityFaults') expect(after.capacityCooldownUntil).toBe(clock.now() + effect.cooldownMs);
      expect(after.inFlight).toBe(0);
    });
  });
});

describe('in-band failures in another shape', () => {
  it('Responses `response.failed` before content fails over, for a Responses and an OpenAI client', async () => {
    const failed = [
      'event: response.created\ndata: {"type":"response.created","sequence_number":0,"response":{"id":"resp_f","object":"response","created_at":1,"status":"in_progress","model":"responses-a-up","output":[]}}\n\n',
      'event: response.failed\ndata: {"type":"response.failed","sequence_number":1,"response":{"id":"resp_f","object":"response","created_at":1,"status":"failed","model":"responses-a-up","output":[],"error":{"code":"server_error","message":"The model failed to generate a response."}}}\n\n',
    ];
    for (const [index, client] of [
      [9, 'same'],
      [9, 'translated'],
    ] as const) {
      h.upstream.reset();
      const backup = wireStream('responses', BACKUP_TEXT, 'responses-b-up');
      h.upstream.enqueue(
        { headers: streamHeaders('responses'), events: failed },
        { headers: streamHeaders('responses'), events: [...backup.beforeContent, ...backup.fromContent] },
      );
      const pool = poolName('responses', index, client);
      const before = laneA(pool, 'responses').counters.laneFaults;
      expect(await sdks[clientProtocol('responses', client)](pool, true)).toBe(BACKUP_TEXT);
      expect(triedLanes()).toEqual(['a', 'b']);
      expect(laneA(pool, 'responses').counters.laneFaults - before).toBe(1);
    }
  });
});
