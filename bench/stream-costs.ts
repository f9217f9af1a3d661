// CPU of the streaming path's pieces, one call at a time, on the bench's own whole streams (the mock's
// answer in each SSE protocol): what a change to one of them buys, without the load, the kernel and
// the other processes that make an end-to-end A/B on a shared machine move by more than it does.
// For each protocol: the stream tail's end read (what a same-protocol stream pays at its end with
// governance off), a full decode (the probe with governance on, or a translated stream's upstream
// side), and the client's credential mask on the stream's bytes (the bench's key, and a key that
// nothing in the stream starts like). Then a translated stream's text masker.
// `process.cpuUsage` around STREAM_COSTS_CALLS calls (default 20,000), best of 5 rounds after one
// unrecorded. STREAM_COSTS_TREE=<tree> measures another checkout's code (a `git archive` of it) on the
// same streams, so two trees can be run one after the other and compared.
//   node bench/stream-costs.ts
//   STREAM_COSTS_TREE=/tmp/before node bench/stream-costs.ts
import type { ProtocolId, StreamEvent } from '../server/ir/index.ts';
import { MockReplies } from './mock-replies.ts';

const tree = process.env.STREAM_COSTS_TREE ?? new URL('..', import.meta.url).pathname.replace(/\/$/, '');
const calls = Number(process.env.STREAM_COSTS_CALLS ?? 20_000);
const { StreamTail } = (await import(`${tree}/server/gateway/stream-tail.ts`)) as typeof import('../server/gateway/stream-tail.ts');
const { codecFor } = (await import(`${tree}/server/protocols/registry.ts`)) as typeof import('../server/protocols/registry.ts');
const { CredentialMask } = (await import(`${tree}/server/gateway/credential-mask.ts`)) as typeof import('../server/gateway/credential-mask.ts');
const { clientStreamMask } = (await import(`${tree}/server/gateway/client-stream-mask.ts`)) as typeof import('../server/gateway/client-stream-mask.ts');
const { StreamTextMasker } = (await import(`${tree}/server/gateway/stream-text-masker.ts`)) as typeof import('../server/gateway/stream-text-masker.ts');

const BENCH_KEY = 'bench-upstream-key';
const OTHER_KEY = 'sk-proj-7fQx2bLkP9aZ0cVw3nT8mR4yJ6hE1uD5gS';
const replies = new MockReplies();

function wholeStream(protocol: ProtocolId): Buffer {
  return Buffer.concat(replies.stream(protocol, false, undefined).writes.map((w) => (typeof w === 'string' ? Buffer.from(w) : Buffer.from(w))));
}

/** Best-of-5 CPU µs of one call of `f`. */
function cost(f: () => number): number {
  let sink = 0;
  const round = () => {
    const start = process.cpuUsage();
    for (let i = 0; i < calls; i++) sink += f();
    const used = process.cpuUsage(start);
    return (used.user + used.system) / calls;
  };
  round();
  const best = Math.min(round(), round(), round(), round(), round());
  if (sink === Number.NEGATIVE_INFINITY) console.log(sink); // keeps the calls from being optimised away
  return best;
}

console.log(`stream costs of ${tree}: CPU µs a call, best of 5 x ${calls}`);
console.log('protocol   bytes  end read  full decode  mask (bench key)  mask (other key)');
for (const protocol of ['openai', 'anthropic', 'responses', 'gemini', 'cohere'] as const) {
  const bytes = wholeStream(protocol);
  const codec = codecFor(protocol)!;
  // As relayStream leaves it: committed after the first events (which the probe decoded), the
  // rest of the read in the tail, and the end read by the decoder the probe hands on (a tree
  // without `forStreamEnd`: a new one).
  const commit = bytes.indexOf('\n\n', bytes.indexOf('\n\n') + 2) + 2;
  const probe = codec.createStreamDecoder() as ReturnType<typeof codec.createStreamDecoder> & { forStreamEnd?(): typeof probe };
  probe.push(bytes.subarray(0, commit));
  const endRead = cost(() => {
    const tail = new StreamTail();
    tail.startAfter(bytes.subarray(0, commit));
    tail.push(bytes.subarray(commit));
    const read = tail.readEnd(probe.forStreamEnd?.() ?? codec.createStreamDecoder());
    return read.relayed.length + read.end.length;
  });
  const fullDecode = cost(() => {
    const decoder = codec.createStreamDecoder();
    return decoder.push(bytes).length + decoder.end().length;
  });
  const masked = (key: string) => {
    const mask = new CredentialMask([key]);
    return cost(() => {
      const stream = clientStreamMask(mask, 'text/event-stream');
      return stream.push(bytes).length + stream.end().length;
    });
  };
  console.log(
    `${protocol.padEnd(10)} ${String(bytes.length).padStart(5)}  ${endRead.toFixed(2).padStart(8)}  ${fullDecode.toFixed(2).padStart(11)}  ${masked(BENCH_KEY).toFixed(2).padStart(16)}  ${masked(OTHER_KEY).toFixed(2).padStart(16)}`,
  );
}

const decoder = codecFor('anthropic')!.createStreamDecoder();
const events: StreamEvent[] = [...decoder.push(wholeStream('anthropic')), ...decoder.end()];
const textMask = new CredentialMask([BENCH_KEY]);
const textMasker = cost(() => {
  const masker = new StreamTextMasker(textMask);
  let n = 0;
  for (const event of events) n += masker.pass(event).length;
  return n;
});
console.log(`text masker of a translated stream (the Anthropic stream's ${events.length} events): ${textMasker.toFixed(2)}`);
