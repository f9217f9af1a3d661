// Micro-benchmark: what masking the operator's credentials costs a stream (ClientStreamMask, the
// same code ClientResponse runs on every write). Realistic chunks: OpenAI chat SSE events and
// Bedrock event-stream frames, one event a write, with a 56-character key that starts like real
// keys (`sk-proj-`); three deltas in ten end like the key begins (`s`, `sk`: noted, not held).
// Run: node bench/credential-mask.ts
import { encodeFrame } from '../server/framing/eventstream-frame.ts';
import { clientStreamMask } from '../server/gateway/client-stream-mask.ts';
import { CredentialMask } from '../server/gateway/credential-mask.ts';

const mask = new CredentialMask([`sk-proj-${'x7Qm2ZpL9w'.repeat(5)}`, 'ASIAZ7QWERTY42UIOPLK']);
const words = ['The', ' answer', ' is', ' that', ' streams', ' stay', ' fast', ' when', ' nothing', ' sk'];
const sse = words.map((w, i) =>
  Buffer.from(
    `data: {"id":"chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG","object":"chat.completion.chunk","created":1741569952,"model":"gpt-4.1-2025-04-14","service_tier":"default","system_fingerprint":"fp_1234567890","choices":[{"index":${i % 1},"delta":{"content":${JSON.stringify(w)}},"logprobs":null,"finish_reason":null}]}\n\n`,
  ),
);
const frames = words.map((w) =>
  Buffer.from(
    encodeFrame(
      { ':event-type': 'contentBlockDelta', ':content-type': 'application/json', ':message-type': 'event' },
      JSON.stringify({ contentBlockIndex: 0, delta: { text: w }, p: 'abcdefghijkl' }),
    ),
  ),
);

function measure(name: string, contentType: string, events: Buffer[], masked: boolean | 'parse'): void {
  const streams = 20_000;
  const perStream = 200;
  let sink = 0;
  const run = (n: number) => {
    for (let s = 0; s < n; s++) {
      const m = masked === true ? clientStreamMask(mask, contentType) : undefined;
      for (let i = 0; i < perStream; i++) {
        const e = events[i % events.length]!;
        if (masked === 'parse')
          sink += (JSON.parse(e.toString('utf8', 6)) as { created: number }).created; // what decoding each event would cost
        else sink += m === undefined ? e.length : m.push(e).length;
      }
      if (m !== undefined) sink += m.end().length;
    }
  };
  run(2000); // warm-up
  const start = process.hrtime.bigint();
  run(streams);
  const ns = Number(process.hrtime.bigint() - start);
  const perEvent = ns / (streams * perStream);
  console.log(
    `${name.padEnd(40)} ${perEvent.toFixed(0).padStart(6)} ns/event  ${((perEvent * perStream) / 1000).toFixed(1).padStart(6)} µs per 200-event stream  (${sink > 0 ? 'ok' : ''})`,
  );
}

measure('SSE, no mask (baseline loop)', 'text/event-stream', sse, false);
measure('SSE, JSON.parse each event (reference)', 'text/event-stream', sse, 'parse');
measure('SSE, masked', 'text/event-stream', sse, true);
measure('event-stream frames, masked', 'application/vnd.amazon.eventstream', frames, true);
measure('bytes (JSON array stream), masked', 'application/json', sse, true);

// A non-stream answer (about 1.5 KB of OpenAI JSON): ClientResponse scans it once before sending.
const body = JSON.stringify({
  id: 'chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG',
  object: 'chat.completion',
  created: 1741569952,
  model: 'gpt-4.1-2025-04-14',
  choices: [{ index: 0, message: { role: 'assistant', content: words.join('').repeat(20), refusal: null }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 19, completion_tokens: 200, total_tokens: 219 },
});
{
  const bytes = Buffer.from(body); // as ClientResponse scans it
  const n = 200_000;
  let hits = 0;
  for (let i = 0; i < 20_000; i++) if (mask.mayHold(bytes)) hits++;
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) if (mask.mayHold(bytes)) hits++;
  const perBody = Number(process.hrtime.bigint() - start) / n;
  const parseStart = process.hrtime.bigint();
  for (let i = 0; i < n / 10; i++) hits += (JSON.parse(body) as { created: number }).created > 0 ? 0 : 1;
  const parse = Number(process.hrtime.bigint() - parseStart) / (n / 10);
  console.log(
    `${'non-stream body (1.5 KB), scan'.padEnd(40)} ${perBody.toFixed(0).padStart(6)} ns/answer (JSON.parse of it: ${parse.toFixed(0)} ns; ${hits} hits)`,
  );
}
