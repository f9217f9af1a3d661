// Request metrics are kept in plain cells and folded into prom-client when read
// (server/observability/metric-cells.ts): the exposition and the JSON must be what prom-client gave
// when it was fed each observation itself, across series, buckets, edges and worker aggregation.
import { AggregatorRegistry, Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { CounterCells, HistogramCells } from '../../server/observability/metric-cells.ts';
import { RequestMetrics } from '../../server/observability/metrics-requests.ts';
import { fabricatedRecord } from '../hooks/fabricated-record.ts';

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

/** A fixed pseudo-random sequence: the same samples every run. */
function samples(n: number): number[] {
  let x = 12345;
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    out.push(((x / 2 ** 31) * 400) ** 2 / 400);
  }
  return out;
}

function both() {
  const direct = new Registry();
  const folded = new Registry();
  const spec = { name: 'h_seconds', help: 'a histogram', labelNames: ['model', 'lane'] as const, buckets: BUCKETS };
  const h = new Histogram({ ...spec, labelNames: [...spec.labelNames], registers: [direct] });
  const c = new Counter({ name: 'c_total', help: 'a counter', labelNames: ['model', 'type'], registers: [direct] });
  const hc = new HistogramCells(folded, spec);
  const cc = new CounterCells(folded, { name: 'c_total', help: 'a counter', labelNames: ['model', 'type'] as const });
  return {
    direct,
    folded,
    observe(model: string, lane: string, v: number) {
      h.labels(model, lane).observe(v);
      hc.cell(model, lane).observe(v);
    },
    inc(model: string, type: string, v?: number) {
      c.labels(model, type).inc(v);
      cc.cell(model, type).inc(v);
    },
  };
}

describe('metric cells', () => {
  it('give the exposition and JSON prom-client gave for the same observations', async () => {
    const m = both();
    const edges = [0, 0.005, 0.0050001, 1, 300, 300.5, 1e6, 1e-9];
    for (const [i, v] of [...samples(500), ...edges].entries()) {
      m.observe(['a', 'b', 'c'][i % 3]!, i % 5 === 0 ? 'x' : 'y', v);
      m.inc(['a', 'b'][i % 2]!, ['input', 'output', 'cost'][i % 3]!, i % 3 === 2 ? v / 7 : Math.floor(v));
    }
    m.inc('zero', 'input', 0);
    m.inc('one', 'input');
    expect(await m.folded.metrics()).toBe(await m.direct.metrics());
    expect(await m.folded.getMetricsAsJSON()).toEqual(await m.direct.getMetricsAsJSON());
    // Read twice: folding is not cumulative.
    m.observe('a', 'x', 0.2);
    expect(await m.folded.metrics()).toBe(await m.direct.metrics());
  });

  it('aggregate across workers as prom-client did', async () => {
    const [one, two] = [both(), both()];
    for (const [i, v] of samples(200).entries()) (i % 2 === 0 ? one : two).observe(i % 3 === 0 ? 'a' : 'b', 'l', v);
    one.inc('a', 'input', 3);
    two.inc('a', 'input', 4);
    two.inc('b', 'output', 1);
    const direct = AggregatorRegistry.aggregate([await one.direct.getMetricsAsJSON(), await two.direct.getMetricsAsJSON()]);
    const folded = AggregatorRegistry.aggregate([await one.folded.getMetricsAsJSON(), await two.folded.getMetricsAsJSON()]);
    expect(await folded.metrics()).toBe(await direct.metrics());
  });

  it('show a series only once it has been added to, in the order of first addition', async () => {
    const registry = new Registry();
    const cells = new CounterCells(registry, { name: 'c_total', help: 'h', labelNames: ['k'] as const });
    const [a, b] = [cells.cell('a'), cells.cell('b')];
    expect(await registry.metrics()).toBe('# HELP c_total h\n# TYPE c_total counter\n');
    b.inc(2);
    a.inc();
    expect(await registry.metrics()).toBe('# HELP c_total h\n# TYPE c_total counter\nc_total{k="b"} 2\nc_total{k="a"} 1\n');
  });

  it('refuse what prom-client refuses', () => {
    const registry = new Registry();
    const counter = new CounterCells(registry, { name: 'c_total', help: 'h', labelNames: ['k'] as const }).cell('a');
    const histogram = new HistogramCells(registry, { name: 'h', help: 'h', labelNames: ['k'] as const, buckets: [1] }).cell('a');
    expect(() => counter.inc(-1)).toThrow();
    expect(() => counter.inc(Number.POSITIVE_INFINITY)).toThrow(TypeError);
    expect(() => histogram.observe(Number.NaN)).toThrow(TypeError);
  });
});

describe('request metrics', () => {
  it('expose what the record says, for records of every shape', async () => {
    const registry = new Registry();
    const metrics = new RequestMetrics(registry);
    metrics.record(fabricatedRecord());
    metrics.record(fabricatedRecord({ clientGone: true, ttfbMs: undefined, status: 499, usage: null, costMicrocents: undefined }));
    metrics.record(fabricatedRecord({ lane: undefined, egress: undefined, attempts: [], status: 429, errorKind: 'rate_limit', errorCode: 'rate_limited' }));
    metrics.record(fabricatedRecord({ model: undefined, attempts: [], status: 401, errorKind: 'authentication' }));
    const text = await registry.metrics();
    expect(text).toContain(
      'gateway_requests_total{ingress="openai",operation="chat",model="chat",lane="claude",status_class="2xx"} 1\n' +
        'gateway_requests_total{ingress="openai",operation="chat",model="chat",lane="claude",status_class="4xx"} 1\n' +
        'gateway_requests_total{ingress="openai",operation="chat",model="chat",lane="",status_class="4xx"} 1\n' +
        'gateway_requests_total{ingress="openai",operation="chat",model="",lane="claude",status_class="4xx"} 1\n',
    );
    expect(text).toContain('gateway_upstream_attempts_total{lane="gpt",provider="openai",outcome="lane_fault"} 2\n');
    expect(text).toContain('gateway_failovers_total{model="chat"} 2\n');
    expect(text).toContain('gateway_tokens_total{model="chat",lane="claude",type="input"} 12\n');
    expect(text).toContain('gateway_tokens_total{model="chat",lane="claude",type="reasoning"} 1\n');
    expect(text).not.toContain('type="cache_write"');
    expect(text).toContain('gateway_rejections_total{model="chat",reason="rate_limit"} 1\n');
    expect(text).toContain('gateway_rejections_total{model="",reason="authentication"} 1\n');
    expect(text).toContain('gateway_client_disconnects_total{model="chat",stage="before_first_byte"} 1\n');
    expect(text).toContain('gateway_request_duration_seconds_count{model="chat",lane="claude",stream="true"} 2\n');
    expect(text).toContain('gateway_time_to_first_byte_seconds_count{model="chat",lane="claude",stream="true"} 1\n');
    expect(text).toContain('gateway_overhead_seconds_count{ingress="openai",egress="anthropic",stream="true"} 2\n');
  });
});
