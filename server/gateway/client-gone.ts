import type { ServerResponse } from 'node:http';

/** Aborts when the client's connection closes before its answer was fully written (it left). */
export function clientGoneSignal(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}

/** Told when the client leaves (an attempt aborts its upstream call). */
export interface GoneWatcher {
  handleEvent(): void;
}

const GONE = Symbol('clientGone');
type WatchedResponse = ServerResponse & { [GONE]?: ClientGone };

/**
 * Whether the client left before its answer was fully written, as a flag, an AbortSignal made only
 * for whoever asks for one (gate hooks, image fetches), and one watcher slot for the attempt in
 * progress (attempts run one at a time). Per request this is one object and one listener on the
 * response, without an AbortController or EventTarget listeners: the usual request never needs them.
 */
export class ClientGone {
  aborted = false;
  private controller: AbortController | undefined;
  private watcher: GoneWatcher | undefined;

  constructor(res: ServerResponse) {
    (res as WatchedResponse)[GONE] = this;
    res.on('close', onResponseClose); // one shared listener, no closure per request
  }

  /** Aborted when the client leaves (at once when it already has). */
  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort();
    }
    return this.controller.signal;
  }

  /** `watcher` is told if the client leaves, until `unwatch`; told at once when it already has. */
  watch(watcher: GoneWatcher): void {
    if (this.aborted) watcher.handleEvent();
    else this.watcher = watcher;
  }

  unwatch(watcher: GoneWatcher): void {
    if (this.watcher === watcher) this.watcher = undefined;
  }

  private gone(): void {
    this.aborted = true;
    this.controller?.abort();
    const watcher = this.watcher;
    this.watcher = undefined;
    watcher?.handleEvent();
  }

  static onClose(res: ServerResponse): void {
    if (!res.writableFinished) (res as WatchedResponse)[GONE]?.gone();
  }
}

function onResponseClose(this: ServerResponse): void {
  ClientGone.onClose(this);
}
