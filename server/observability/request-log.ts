import { microcentsToUsdNumber } from '../shared/money.ts';
import type { Logger } from '../shared/logger.ts';
import { infoLineWriter } from '../shared/log-line.ts';
import { overheadMs, type RequestObserver, type RequestRecord } from './request-record.ts';

/**
 * The one log line per data-plane request, from its record: who (key id, never its secret), what
 * (model, lane, protocols), how it ended (status, error kind and code), how long (latency, first
 * byte, upstream time, gateway overhead), what it used (tokens, cost) and what a translation could
 * not carry. No request or answer text, no credentials: the record holds none.
 *
 * The line's fields are written as JSON here, in one string, in the order and form pino gave them
 * when it was handed them as an object (the test compares the two): building that object and
 * having pino walk and stringify it was a few per cent of a request's CPU. The line skips the
 * redaction pass as it did before: it is built from record fields only, which hold no
 * credentials (the secret-scan test checks it).
 */
export class RequestLog implements RequestObserver {
  private readonly write: (fields: string) => void;

  constructor(log: Logger) {
    this.write = infoLineWriter(log, 'request');
  }

  record(record: RequestRecord): void {
    this.write(requestLogFields(record));
  }
}

/** The line's fields as a JSON fragment, `,"requestId":"...",...`: what pino made of the object. */
export function requestLogFields(record: RequestRecord): string {
  let line = `,"requestId":${str(record.requestId)},"configVersion":${known(record.configVersion)}`;
  if (record.ledgerId !== undefined) line += `,"ledgerId":${str(record.ledgerId)}`;
  if (record.keyId !== undefined) line += `,"keyId":${str(record.keyId)}`;
  if (record.model !== undefined) line += `,"model":${known(record.model)}`;
  if (record.pool !== undefined) line += `,"pool":${known(record.pool)}`;
  if (record.lane !== undefined) {
    line += `,"lane":${known(record.lane)}`;
    if (record.provider !== undefined) line += `,"provider":${known(record.provider)}`;
    if (record.upstreamModel !== undefined) line += `,"upstreamModel":${known(record.upstreamModel)}`;
  }
  line += `,"ingress":${known(record.ingress)}`;
  if (record.operation !== 'chat') line += `,"operation":${known(record.operation)}`;
  if (record.egress !== undefined) line += `,"egress":${known(record.egress)}`;
  line += `,"stream":${record.stream},"status":${num(record.status)}`;
  if (record.errorKind !== undefined) line += `,"errorKind":${known(record.errorKind)}`;
  if (record.errorCode !== undefined) line += `,"errorCode":${known(record.errorCode)}`;
  if (record.clientGone) line += ',"clientGone":true';
  line += `,"latencyMs":${msJson(record.latencyMs)}`;
  if (record.ttfbMs !== undefined) line += `,"ttfbMs":${msJson(record.ttfbMs)}`;
  line += `,"upstreamMs":${msJson(record.upstreamMs)},"overheadMs":${msJson(overheadMs(record))},"attempts":[`;
  const { attempts } = record;
  for (let i = 0; i < attempts.length; i++) {
    const a = attempts[i]!;
    if (i > 0) line += ',';
    line += str(`${a.lane}:${a.outcome}${a.status === undefined ? '' : `:${a.status}`}${a.detail === undefined ? '' : ` (${a.detail})`}`);
  }
  line += ']';
  const { usage } = record;
  if (usage !== null) {
    line += `,"tokens":{"input":${num(usage.inputTokens)},"output":${num(usage.outputTokens)},"cacheRead":${num(usage.cacheReadTokens)},"cacheWrite":${num(usage.cacheWriteTokens)},"reasoning":${num(usage.reasoningTokens)}}`;
  }
  if (record.finishReason !== undefined) line += `,"finishReason":${known(record.finishReason)}`;
  if (record.costMicrocents !== undefined) line += `,"costUsd":${num(microcentsToUsdNumber(record.costMicrocents))}`;
  const { warnings } = record;
  if (warnings.length > 0) {
    line += ',"warnings":[';
    for (let i = 0; i < warnings.length; i++) line += `${i > 0 ? ',' : ''}${str(`${warnings[i]!.kind}=${warnings[i]!.path}`)}`;
    line += ']';
  }
  return line;
}

/** A JSON string, escaped as JSON.stringify (and pino) escape it. */
function str(value: string): string {
  return JSON.stringify(value);
}

/** Escaped strings of the values that repeat from request to request (they come from the configuration). */
const ESCAPED = new Map<string, string>();
/** More than a configuration holds; past it the cache starts over (after reloads that renamed things). */
const MAX_ESCAPED = 4096;

/** `str` for a value from a bounded set (names, protocols, outcomes): looked up rather than escaped again. */
function known(value: string): string {
  let escaped = ESCAPED.get(value);
  if (escaped === undefined) {
    if (ESCAPED.size >= MAX_ESCAPED) ESCAPED.clear();
    ESCAPED.set(value, (escaped = JSON.stringify(value)));
  }
  return escaped;
}

/** A JSON number as pino writes one: not finite is null. */
function num(value: number): string {
  return Number.isFinite(value) ? String(value) : 'null';
}

/**
 * Milliseconds to a microsecond (enough for a log line), as JSON: the text of
 * `Math.round(value * 1000) / 1000`, written from the whole microseconds. Formatting a fraction
 * is slow in V8 (a fresh double every request, so its number cache does not help); the integer
 * parts are quick, and a double with at most three decimals prints as exactly those decimals.
 */
export function msJson(value: number): string {
  const micros = Math.round(value * 1000);
  if (!(Math.abs(micros) < 1e15)) return num(micros / 1000); // not finite, or too large to split exactly
  const abs = micros < 0 ? -micros : micros;
  const whole = Math.floor(abs / 1000);
  const frac = abs - whole * 1000;
  const head = micros < 0 ? `-${whole}` : `${whole}`;
  if (frac === 0) return micros === 0 ? '0' : head; // -0 prints as 0
  if (frac % 100 === 0) return `${head}.${frac / 100}`;
  if (frac % 10 === 0) return `${head}.${frac < 100 ? '0' : ''}${frac / 10}`;
  return `${head}.${frac < 10 ? '00' : frac < 100 ? '0' : ''}${frac}`;
}
