/**
 * A start that cannot go on for a reason the operator fixes (a port held by another process),
 * said in one sentence: main.ts prints the message alone, without a stack trace. `code` keeps the
 * system's error code (EADDRINUSE, ...) for callers that tell causes apart.
 */
export class StartError extends Error {
  override readonly name = 'StartError';
  readonly code: string | undefined;

  constructor(message: string, code?: string) {
    super(message);
    this.code = code;
  }
}
