/** Told once when an upstream call is to stop (the object itself, as an EventTarget listener would be). */
export interface AbortListener {
  handleEvent(): void;
}

/**
 * An attempt's abort, watched by one listener at a time without an EventTarget listener on its
 * AbortSignal. A listener on the signal (Node's EventTarget: a Listener record and an async
 * callback closure per call, linking the signal to the upstream reply and through it to the whole
 * request) kept more of each request alive past scavenges: a workers:1 gateway promoted 540-670 KB
 * per scavenge with it and 330-420 KB without (bench/RESULTS.md, session 7, nonstream). The
 * signal stays for whoever needs one (image fetches, hooks); the upstream reply watches the
 * attempt instead.
 */
export interface AbortWatch {
  /** `listener` is told when the attempt aborts, until `unwatchAbort`; told at once when it already has. */
  watchAbort(listener: AbortListener): void;
  unwatchAbort(listener: AbortListener): void;
}
