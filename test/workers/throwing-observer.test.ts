// An observer that throws on a record a worker posted is isolated and logged: the main thread
// keeps serving and the other observers still get every record.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../server/shared/logger.ts';
import type { RequestObserver } from '../../server/observability/request-record.ts';
import { onNewConnection } from '../support/fresh-connection.ts';
import { startHarness, type Harness } from '../support/gateway-harness.ts';
import { RecordCollector } from '../support/record-collector.ts';

class ThrowingObserver implements RequestObserver {
  record(): void {
    throw new Error('observer bug');
  }
}

const logLines: Record<string, unknown>[] = [];
const sink = new Writable({
  write(chunk: Buffer, _encoding, done) {
    for (const line of chunk.toString().split('\n')) if (line !== '') logLines.push(JSON.parse(line) as Record<string, unknown>);
    done();
  },
});
const collector = new RecordCollector();
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ workers: 2, observers: [new ThrowingObserver(), collector], log: createLogger('error', sink) });
});
afterAll(() => h.close());

describe('a throwing observer with two workers', () => {
  it('does not stop the main thread nor the observers after it', async () => {
    const N = 24;
    for (let i = 0; i < N; i++) {
      const answer = await onNewConnection(`${h.url}/v1/chat/completions`, {
        method: 'POST',
        body: JSON.stringify({ model: 'gpt', messages: [{ role: 'user', content: `hi ${i}` }] }),
      });
      expect(answer.status).toBe(200);
    }
    await expect.poll(() => collector.records.length, { timeout: 5000 }).toBe(N);
    const workers = (await h.gateway.workerTelemetry()).filter((t) => t.requests > 0);
    expect(workers.length).toBe(2); // both served, so records came through the pool too
    expect(logLines.some((l) => l.msg === "a request observer failed on a worker's record")).toBe(true);
    expect((await fetch(`${h.url}/healthz`)).status).toBe(200);
  });
});
