// The fuzz suite: mutated real request payloads over every data-plane route (the six protocols'
// chat routes, stream and not, to same-protocol and cross-protocol lanes and a mixed pool; the
// models, health and metrics routes; unknown paths) against a gateway process with governance on.
// Zero 5xx, every 4xx in the client protocol's error shape, no crash, no worker lost, no
// unexpected failure logged, and a normal request still served afterwards.
// Bounded: FUZZ_CASES (2500) cases or FUZZ_SECONDS (60) s, whichever ends first. The seed is
// printed; FUZZ_SEED=<seed> replays the run, FUZZ_ONLY=<index> one case of it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROTOCOL_IDS } from '../../server/protocols/registry.ts';
import { startSixProtocolUpstream, type SixProtocolUpstream } from '../matrix/six-protocol-upstream.ts';
import { laneModel } from './fuzz-cases.ts';
import { FUZZ_UPSTREAM_KEY, startFuzzGateway, type FuzzGateway } from './fuzz-gateway.ts';
import { protocolHeaders } from './mutate-request.ts';
import { fuzzSettingsFromEnv, runFuzz } from './run-fuzz.ts';
import { loadCorpus } from './seed-corpus.ts';

const settings = fuzzSettingsFromEnv();
let upstream: SixProtocolUpstream;
let gateway: FuzzGateway;
beforeAll(async () => {
  upstream = await startSixProtocolUpstream({ refuseInvalid: true });
  gateway = await startFuzzGateway(upstream.url);
}, 60_000);
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

describe('fuzzed requests over every route', () => {
  it(
    'no 5xx, every 4xx in the client protocol shape, no crash',
    async () => {
      const corpus = loadCorpus();
      console.log(
        `fuzz: seed ${settings.seed} (replay: FUZZ_SEED=${settings.seed}), ${settings.only === undefined ? `${settings.cases} cases` : `case ${settings.only} only`}, ` +
          `${Object.values(corpus.seeds).reduce((n, s) => n + s.length, 0)} seed payloads (${corpus.realCount} captured)`,
      );
      const report = await runFuzz(gateway.url, corpus, gateway.key, settings);
      console.log(
        `fuzz: ${report.sent} cases in ${(report.elapsedMs / 1000).toFixed(1)} s, by status ${JSON.stringify(report.byStatus)}, ${report.retried.length} resent after a reset of a reused connection; ` +
          `the mock refused ${upstream.schemaViolations.length} upstream requests as invalid for their protocol`,
      );

      for (const line of report.retried) console.log(`fuzz: resent after a reset: ${line}`);
      // What the gateway forwarded that its upstream's schema refused (answered 400, so not a failure here).
      for (const line of upstream.schemaViolations.slice(0, 5)) console.log(`fuzz: upstream refused: ${line.slice(0, 300)}`);
      // The gateway's own error lines carry the stack of an unexpected failure: shown with the cases.
      expect(report.failures, `seed ${settings.seed}:\n${report.failures.slice(0, 20).join('\n')}\n${gateway.errorLines.slice(0, 5).join('\n')}`).toEqual([]);
      expect(gateway.exited(), 'the gateway process exited').toBeUndefined();
      expect(gateway.errorLines, 'error-level log lines (unexpected failures, workers lost)').toEqual([]);
      // Enough of the run happened to mean something, even on a loaded machine.
      expect(report.sent).toBeGreaterThanOrEqual(Math.min(settings.cases, settings.only === undefined ? 300 : 1));
      if (settings.only === undefined) {
        // Cases the client library refused to send are not judged: most must have been sent. And a
        // gateway that refused everything (in the right shape) would pass the checks above: a fair
        // share of the mutated requests must still be served (about a third are, by the seeds).
        const answered = report.sent - (report.byStatus.skipped ?? 0);
        expect(answered, JSON.stringify(report.byStatus)).toBeGreaterThan(report.sent * 0.9);
        const served = Object.entries(report.byStatus)
          .filter(([status]) => /^2\d\d$/.test(status))
          .reduce((n, [, count]) => n + count, 0);
        expect(served, JSON.stringify(report.byStatus)).toBeGreaterThan(answered * 0.1);
      }
    },
    settings.budgetMs + 90_000,
  ); // the run stops starting cases at its budget; the last ones and the checks need a moment

  it('afterwards, a normal request in every protocol is still served', async () => {
    const bodies = {
      openai: { model: laneModel('openai'), messages: [{ role: 'user', content: 'hi' }] },
      responses: { model: laneModel('responses'), input: 'hi' },
      anthropic: { model: laneModel('anthropic'), max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] },
      gemini: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
      bedrock: { messages: [{ role: 'user', content: [{ text: 'hi' }] }] },
      cohere: { model: laneModel('cohere'), messages: [{ role: 'user', content: 'hi' }] },
    };
    const paths = {
      openai: '/v1/chat/completions',
      responses: '/v1/responses',
      anthropic: '/v1/messages',
      cohere: '/v2/chat',
      gemini: `/v1beta/models/${laneModel('gemini')}:generateContent`,
      bedrock: `/model/${laneModel('bedrock')}/converse`,
    };
    for (const protocol of PROTOCOL_IDS) {
      const res = await fetch(`${gateway.url}${paths[protocol]}`, {
        method: 'POST',
        headers: protocolHeaders(protocol, gateway.key),
        body: JSON.stringify(bodies[protocol]),
      });
      const text = await res.text();
      expect(res.status, `${protocol}: ${text}`).toBe(200);
      expect(text).toContain(`pong from ${protocol}`);
      expect(text).not.toContain(FUZZ_UPSTREAM_KEY);
    }
    expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
    expect(gateway.exited()).toBeUndefined();
  });
});
