import type { MessagePort } from 'node:worker_threads';
import type { RequestContent } from '../observability/request-content.ts';
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
  private batch: { record: RequestRecord; content?: RequestContent }[] = [];
  private scheduled = false;

  constructor(port: MessagePort) {
    this.port = port;
  }

  record(record: RequestRecord, content?: RequestContent): void {
    this.batch.push(content === undefined ? { record } : { record, content });
    if (this.batch.length >= MAX_BATCH) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  flush(): void {
    this.scheduled = false;
    if (this.batch.length === 0) return;
    const entries = this.batch;
    this.batch = [];
    this.port.postMessage({ type: 'records', entries } satisfies WorkerEvent);
  }
}
