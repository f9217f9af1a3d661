import type { IncomingHttpHeaders } from 'node:http';
import type { UpstreamController, UpstreamHandler, UpstreamRequest } from './upstream-client.ts';
import type { UpstreamConnection } from './upstream-connection.ts';

/**
 * One request's side of a connection: the handler's controller and its timeouts (time to the
 * headers, silence inside the body). After the first error, abort or end nothing more reaches
 * the handler.
 */
export class UpstreamExchange implements UpstreamController {
  readonly request: UpstreamRequest;
  private readonly handler: UpstreamHandler;
  connection: UpstreamConnection | null = null;
  private timer: NodeJS.Timeout | undefined;
  done = false;
  paused = false;

  constructor(request: UpstreamRequest, handler: UpstreamHandler) {
    this.request = request;
    this.handler = handler;
  }

  /** Sent: the time to the headers runs. */
  sent(onTimeout: () => void): void {
    this.timer = setTimeout(onTimeout, this.request.headersTimeout);
  }

  started(status: number, headers: IncomingHttpHeaders, onIdle: () => void): void {
    if (this.done) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(onIdle, this.request.bodyTimeout);
    this.handler.onResponseStart(this, status, headers);
  }

  data(chunk: Buffer): void {
    if (this.done) return;
    this.timer?.refresh();
    this.handler.onResponseData(this, chunk);
  }

  ended(): void {
    if (this.done) return;
    this.done = true;
    clearTimeout(this.timer);
    this.handler.onResponseEnd(this);
  }

  failed(error: Error): void {
    if (this.done) return;
    this.done = true;
    clearTimeout(this.timer);
    this.handler.onResponseError(this, error);
  }

  pause(): void {
    this.paused = true;
    this.connection?.pause();
  }

  resume(): void {
    this.paused = false;
    // The body's silence is counted from here: the pause was the reader's.
    this.timer?.refresh();
    this.connection?.resume();
  }

  /** The running timeout starts over (its silence was not the upstream's: upstream-connection.ts). */
  restartTimer(): void {
    this.timer?.refresh();
  }

  abort(reason: Error): void {
    if (this.done) return;
    this.failed(reason);
    this.connection?.destroy();
  }
}
