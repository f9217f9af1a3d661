// Every framer that holds an unfinished piece of an upstream stream bounds it: an SSE line, an SSE
// event of many data lines, an element of Gemini's JSON array. Past the bound it throws a
// GatewayFailure the pipeline treats as a lane fault.
import { describe, expect, it } from 'vitest';
import { SseParser } from '../../server/framing/sse-parser.ts';
import { MAX_STREAM_EVENT_CHARS } from '../../server/framing/stream-event-limit.ts';
import { GatewayFailure } from '../../server/ir/index.ts';
import { JsonArrayParser } from '../../server/protocols/gemini/json-array-parser.ts';

const bytes = (text: string) => Buffer.from(text);
const failure = (run: () => unknown): GatewayFailure => {
  try {
    run();
  } catch (error) {
    if (error instanceof GatewayFailure) return error;
    throw error;
  }
  throw new Error('did not throw');
};

describe('stream event limit', () => {
  it('is generous: 16 MiB', () => {
    expect(MAX_STREAM_EVENT_CHARS).toBe(16 * 1024 * 1024);
  });

  it('SSE: a line that never ends is refused once it passes the limit, whatever the reads', () => {
    const parser = new SseParser(100);
    parser.push(bytes('data: {"a":1}\n\n'));
    parser.push(bytes(`data: ${'x'.repeat(50)}`));
    const error = failure(() => parser.push(bytes('y'.repeat(60))));
    expect(error.error).toMatchObject({ kind: 'server', status: 502, code: 'upstream_event_too_large' });
  });

  it('SSE: an event of many short data lines is refused past the limit', () => {
    const parser = new SseParser(100);
    const line = `data: ${'z'.repeat(20)}\n`;
    expect(parser.push(bytes(line.repeat(4)))).toEqual([]);
    expect(failure(() => parser.push(bytes(line.repeat(2)))).error.code).toBe('upstream_event_too_large');
  });

  it('SSE: events up to the limit pass, and the count starts again at each event', () => {
    const parser = new SseParser(100);
    const event = `data: ${'q'.repeat(90)}\n\n`;
    expect(parser.push(bytes(event.repeat(3)))).toHaveLength(3);
  });

  it('Gemini JSON array: an element that never closes is refused past the limit', () => {
    const parser = new JsonArrayParser(100);
    expect(parser.push(bytes('[{"a":1}\n,')).elements).toHaveLength(1);
    parser.push(bytes(`{"text":"${'w'.repeat(50)}`));
    expect(failure(() => parser.push(bytes('w'.repeat(60)))).error.code).toBe('upstream_event_too_large');
  });
});
