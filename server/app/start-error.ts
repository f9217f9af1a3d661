/**
 * A start that cannot go on for a reason the operator fixes (a port held by another process),
 * said in one sentence: main.ts prints the message alone, without a stack trace.
 */
export class StartError extends Error {
  override readonly name = 'StartError';
}
