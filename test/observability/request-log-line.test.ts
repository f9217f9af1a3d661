// The request log line is written by hand (server/observability/request-log.ts): it must be the
// very line pino wrote when it was handed the record's fields as an object, for every shape of
// record, in the main thread and in a worker (whose logger has a `worker` binding).
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { msJson, RequestLog } from '../../server/observability/request-log.ts';
import { overheadMs, type RequestRecord } from '../../server/observability/request-record.ts';
import { createLogger } from '../../server/shared/logger.ts';
import { microcentsToUsdNumber } from '../../server/shared/money.ts';
import { fabricatedRecord } from '../hooks/fabricated-record.ts';

/** The object the request line was logged from before it was written by hand (the reference). */
function pinoFields(record: RequestRecord): Record<string, unknown> {
  const { usage } = record;
  const ms = (v: number) => Math.round(v * 1000) / 1000;
  return {
    requestId: record.requestId,
    configVersion: record.configVersion,
    ...(record.ledgerId !== undefined && { ledgerId: record.ledgerId }),
    ...(record.keyId !== undefined && { keyId: record.keyId }),
    ...(record.model !== undefined && { model: record.model }),
    ...(record.pool !== undefined && { pool: record.pool }),
    ...(record.lane !== undefined && { lane: record.lane, provider: record.provider, upstreamModel: record.upstreamModel }),
    ingress: record.ingress,
    ...(record.operation !== 'chat' && { operation: record.operation }),
    ...(record.egress !== undefined && { egress: record.egress }),
    stream: record.stream,
    status: record.status,
    ...(record.errorKind !== undefined && { errorKind: record.errorKind }),
    ...(record.errorCode !== undefined && { errorCode: record.errorCode }),
    ...(record.clientGone && { clientGone: true }),
    latencyMs: ms(record.latencyMs),
    ...(record.ttfbMs !== undefined && { ttfbMs: ms(record.ttfbMs) }),
    upstreamMs: ms(record.upstreamMs),
    overheadMs: ms(overheadMs(record)),
    attempts: record.attempts.map(
      (a) => `${a.lane}:${a.outcome}${a.status === undefined ? '' : `:${a.status}`}${a.detail === undefined ? '' : ` (${a.detail})`}`,
    ),
    ...(usage !== null && {
      tokens: {
        input: usage.inputTokens,
        output: usage.outputTokens,
        cacheRead: usage.cacheReadTokens,
        cacheWrite: usage.cacheWriteTokens,
        reasoning: usage.reasoningTokens,
      },
    }),
    ...(record.finishReason !== undefined && { finishReason: record.finishReason }),
    ...(record.costMicrocents !== undefined && { costUsd: microcentsToUsdNumber(record.costMicrocents) }),
    ...(record.warnings.length > 0 && { warnings: record.warnings.map((w) => `${w.kind}=${w.path}`) }),
  };
}

function sink(): { stream: Writable; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { stream, lines };
}

/** Both lines of one record, the time made equal (the two are written a moment apart). */
function bothLines(record: RequestRecord, make: (dest: Writable) => pino.Logger): [string, string] {
  const ours = sink();
  const theirs = sink();
  new RequestLog(make(ours.stream)).record(record);
  make(theirs.stream).child({}, { redact: [] }).info(pinoFields(record), 'request');
  const time = (line: string | undefined) => (line ?? '').replace(/"time":\d+/, '"time":0');
  return [time(ours.lines.join('')), time(theirs.lines.join(''))];
}

const RECORDS: [string, RequestRecord][] = [
  ['a failover with usage, cost and a warning', fabricatedRecord()],
  [
    'a refusal: no lane, no usage, an error, optional fields absent',
    fabricatedRecord({
      keyId: undefined,
      model: undefined,
      pool: undefined,
      lane: undefined,
      provider: undefined,
      upstreamModel: undefined,
      egress: undefined,
      status: 429,
      errorKind: 'rate_limit',
      errorCode: 'rate_limited',
      usage: null,
      finishReason: undefined,
      costMicrocents: undefined,
      ttfbMs: undefined,
      attempts: [],
      warnings: [],
    }),
  ],
  [
    'a client that left, a ledger id, embeddings, a skipped lane',
    fabricatedRecord({
      ledgerId: 'req_ledger"quoted\\',
      operation: 'embeddings',
      clientGone: true,
      status: 499,
      costMicrocents: 0n,
      attempts: [{ lane: 'gpt', provider: 'openai', outcome: 'skipped', detail: 'cannot express n', startMs: 0, ms: 0 }],
    }),
  ],
  [
    'strings that need escaping, non-finite numbers',
    fabricatedRecord({
      requestId: 'id with "quotes", \\ \n\t\u0001 and \ud800 é',
      model: 'm\u2028odel',
      latencyMs: Number.NaN,
      upstreamMs: Number.POSITIVE_INFINITY,
      usage: { inputTokens: 1, outputTokens: Number.NaN, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
      warnings: [
        { kind: 'dropped', path: 'a.b' },
        { kind: 'lossy', path: 'c"d' },
      ],
    }),
  ],
];

describe('the request log line', () => {
  for (const [name, record] of RECORDS) {
    it(`is the line pino wrote from the object: ${name}`, () => {
      const [ours, theirs] = bothLines(record, (dest) => createLogger('info', dest));
      expect(ours).toBe(theirs);
      expect(ours.endsWith('\n')).toBe(true);
      JSON.parse(ours);
    });

    it(`is the same with a worker's binding: ${name}`, () => {
      const [ours, theirs] = bothLines(record, (dest) => createLogger('info', dest).child({ worker: 2 }));
      expect(ours).toBe(theirs);
      expect(ours).toContain('"service":"gateway","worker":2,"requestId"');
    });
  }

  it('goes through pino for a logger it cannot write for directly (a mixin), with the same fields', () => {
    const record = fabricatedRecord();
    const [ours, theirs] = bothLines(record, (dest) => pino({ base: { service: 'gateway' }, mixin: () => ({ extra: 1 }) }, dest));
    expect(ours).toBe(theirs);
    expect(ours).toContain('"extra":1');
  });

  it('writes nothing when info is not enabled', () => {
    const out = sink();
    const log = createLogger('info', out.stream);
    const requestLog = new RequestLog(log);
    log.level = 'warn';
    requestLog.record(fabricatedRecord());
    expect(out.lines).toEqual([]);
  });
});

describe('milliseconds in the line', () => {
  it('print as pino printed Math.round(ms * 1000) / 1000', () => {
    const values = [
      0, -0, 0.0004, 0.0005, -0.0005, -0.0004, 0.001, 0.01, 0.1, 0.999, 0.9995, 1.0005, 10.2, 123.456, 99.99, 1e12, 1e14, 1e15, 1e16, 1e300, -3.2,
    ];
    let x = 42;
    for (let i = 0; i < 100_000; i++) {
      x = (x * 1103515245 + 12345) % 2 ** 31;
      values.push((x / 2 ** 31) * 10 ** ((i % 9) - 3) * (i % 17 === 0 ? -1 : 1));
    }
    for (const value of values) expect(msJson(value)).toBe(String(Math.round(value * 1000) / 1000));
    expect([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY].map(msJson)).toEqual(['null', 'null', 'null']);
  });
});
