// A loopback OTLP/HTTP receiver for tests: it takes the gateway's real protobuf exports and decodes
// them with the OpenTelemetry protobuf definitions (the protobufjs code generated from
// opentelemetry-proto that @opentelemetry/otlp-transformer shipped), then flattens spans and
// metrics for assertions. It can also hang (accept and never answer), as a collector in trouble.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import protos from 'otlp-transformer-protos/build/src/generated/root.js';

const collector = (protos as any).opentelemetry.proto.collector;

export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** '' for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  /** OTLP SpanKind: 2 server, 3 client. */
  readonly kind: number;
  readonly startNs: bigint;
  readonly endNs: bigint;
  readonly attributes: Readonly<Record<string, unknown>>;
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  readonly statusCode: number;
  readonly resource: Readonly<Record<string, unknown>>;
}

export interface ReceivedMetricPoint {
  readonly metric: string;
  readonly attributes: Readonly<Record<string, unknown>>;
  /** Sums and gauges: the value; histograms: the count. */
  readonly value: number;
}

export interface OtlpReceiver {
  readonly url: string;
  readonly spans: ReceivedSpan[];
  readonly metricPoints: ReceivedMetricPoint[];
  /** Every request body as received (protobuf bytes), for scanning. */
  readonly bodies: Buffer[];
  /** Headers of every export request. */
  readonly headers: IncomingMessage['headers'][];
  /** Requests that arrived (answered or left hanging). */
  received(): number;
  close(): Promise<void>;
}

export async function startOtlpReceiver(options: { hang?: boolean } = {}): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const metricPoints: ReceivedMetricPoint[] = [];
  const bodies: Buffer[] = [];
  const headers: IncomingMessage['headers'][] = [];
  const hanging: ServerResponse[] = [];
  let count = 0;

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      count++;
      if (options.hang === true) {
        hanging.push(res);
        return;
      }
      const body = Buffer.concat(chunks);
      bodies.push(body);
      headers.push(req.headers);
      if (req.url === '/v1/traces') spans.push(...decodeSpans(body));
      else if (req.url === '/v1/metrics') metricPoints.push(...decodeMetrics(body));
      res.writeHead(200, { 'content-type': 'application/x-protobuf' });
      res.end(); // an empty Export*ServiceResponse: everything accepted
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    metricPoints,
    bodies,
    headers,
    received: () => count,
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const TO_OBJECT = { longs: String, bytes: Array, defaults: true, arrays: true, oneofs: true } as const;

function decodeSpans(body: Buffer): ReceivedSpan[] {
  const request = collector.trace.v1.ExportTraceServiceRequest;
  const decoded = request.toObject(request.decode(body), TO_OBJECT) as {
    resourceSpans: { resource: { attributes: KeyValue[] }; scopeSpans: { spans: RawSpan[] }[] }[];
  };
  return decoded.resourceSpans.flatMap((rs) =>
    rs.scopeSpans.flatMap((ss) =>
      ss.spans.map((s) => ({
        traceId: hex(s.traceId),
        spanId: hex(s.spanId),
        parentSpanId: hex(s.parentSpanId),
        name: s.name,
        kind: s.kind,
        startNs: BigInt(s.startTimeUnixNano),
        endNs: BigInt(s.endTimeUnixNano),
        attributes: attributesOf(s.attributes),
        statusCode: s.status?.code ?? 0,
        resource: attributesOf(rs.resource.attributes),
      })),
    ),
  );
}

function decodeMetrics(body: Buffer): ReceivedMetricPoint[] {
  const request = collector.metrics.v1.ExportMetricsServiceRequest;
  const decoded = request.toObject(request.decode(body), TO_OBJECT) as {
    resourceMetrics: { scopeMetrics: { metrics: RawMetric[] }[] }[];
  };
  const points: ReceivedMetricPoint[] = [];
  for (const rm of decoded.resourceMetrics) {
    for (const sm of rm.scopeMetrics) {
      for (const m of sm.metrics) {
        for (const p of m.sum?.dataPoints ?? m.gauge?.dataPoints ?? [])
          points.push({ metric: m.name, attributes: attributesOf(p.attributes), value: p.asDouble ?? Number(p.asInt) });
        for (const p of m.histogram?.dataPoints ?? []) points.push({ metric: m.name, attributes: attributesOf(p.attributes), value: Number(p.count) });
      }
    }
  }
  return points;
}

interface KeyValue {
  key: string;
  value: AnyValue;
}
interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string;
  doubleValue?: number;
  arrayValue?: { values: AnyValue[] };
  value?: string;
}
interface RawSpan {
  traceId: number[];
  spanId: number[];
  parentSpanId: number[];
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: KeyValue[];
  status?: { code: number };
}
interface RawMetric {
  name: string;
  sum?: { dataPoints: RawPoint[] };
  gauge?: { dataPoints: RawPoint[] };
  histogram?: { dataPoints: (RawPoint & { count: string })[] };
}
interface RawPoint {
  attributes: KeyValue[];
  asDouble?: number;
  asInt?: string;
}

function hex(bytes: number[] | undefined): string {
  return Buffer.from(bytes ?? []).toString('hex');
}

function attributesOf(list: KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, anyValueOf(kv.value)]));
}

/** With `defaults: true` every field is present; the `value` oneof names the one that is set. */
function anyValueOf(v: AnyValue): unknown {
  switch (v.value) {
    case 'stringValue':
      return v.stringValue;
    case 'boolValue':
      return v.boolValue;
    case 'intValue':
      return Number(v.intValue);
    case 'doubleValue':
      return v.doubleValue;
    case 'arrayValue':
      return (v.arrayValue?.values ?? []).map(anyValueOf);
    default:
      return undefined;
  }
}
