import type { MessagePort } from 'node:worker_threads';
import type { RequestObserver, RequestRecord } from '../observability/request-record.ts';
import type { WorkerEvent } from './worker-protocol.ts';

const MAX_BATCH = 256;

/**
 * A worker's one request observer: records go to the main thread, where the observers run
 * (one metrics registry, one /stats window, one webhook queue for the whole gateway). Batched per
 * turn of the event loop, so a busy worker posts one message for many requests.
 */
export class RecordForwarder implements RequestObserver {
  private readonly port: MessagePort;
  private batch: RequestRecord[] = [];
  private scheduled = false;

  constructor(port: MessagePort) {
    this.port = port;
  }

  record(record: RequestRecord): void {
    this.batch.push(record);
    if (this.batch.length >= MAX_BATCH) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  flush(): void {
    this.scheduled = false;
    if (this.batch.length === 0) return;
    const records = this.batch;
    this.batch = [];
    this.port.postMessage({ type: 'records', records } satisfies WorkerEvent);
  }
}
