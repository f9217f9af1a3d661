// Collects the RequestRecords a gateway hands its observers, so tests can wait for one request's
// record (it is handed over just after the response ends, so it may trail the client's read).
import type { RequestObserver, RequestRecord } from '../../server/observability/request-record.ts';

export class RecordCollector implements RequestObserver {
  readonly records: RequestRecord[] = [];
  private readonly waiting = new Map<string, (record: RequestRecord) => void>();

  record(record: RequestRecord): void {
    this.records.push(record);
    this.waiting.get(record.requestId)?.(record);
  }

  /** The record of this request, waiting up to `timeoutMs` for it. */
  async forRequest(requestId: string, timeoutMs = 2000): Promise<RequestRecord> {
    const found = this.records.find((r) => r.requestId === requestId);
    if (found !== undefined) return found;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no record for ${requestId} within ${timeoutMs} ms`)), timeoutMs);
      this.waiting.set(requestId, (record) => {
        clearTimeout(timer);
        this.waiting.delete(requestId);
        resolve(record);
      });
    });
  }

  /** Waits (up to `timeoutMs`) until at least `count` records arrived; the test then checks how many. */
  async atLeast(count: number, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.records.length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  }

  /** Records of one request id (there must be exactly one per request). */
  count(requestId: string): number {
    return this.records.filter((r) => r.requestId === requestId).length;
  }

  clear(): void {
    this.records.length = 0;
  }
}
