import type { Dispatcher } from 'undici';
import type { Logger } from '../shared/logger.ts';
import { parseGateAnswer, type GateQuestion } from './gate-contract.ts';
import type { GateCounters } from './hook-counters.ts';
import type { GateHookSettings } from './hook-settings.ts';
import { postToHook } from './post-to-hook.ts';

/** A gate's decision on one request: its own answer, or, when it gave none, its on_error. */
export type GateVerdict =
  | { readonly allow: boolean; readonly reason?: string; readonly error?: undefined }
  | { readonly allow: boolean; readonly error: string };

/**
 * A synchronous gate hook (config `kind: gate`): asked before the first upstream attempt whether a
 * request may go on. Never throws: a failed call becomes the hook's on_error verdict.
 */
export class GateHook {
  readonly settings: GateHookSettings;
  readonly counters: GateCounters = { calls: 0, allowed: 0, denied: 0, errors: 0 };
  private readonly dispatcher: Dispatcher;
  private readonly log: Logger;

  constructor(settings: GateHookSettings, dispatcher: Dispatcher, log: Logger) {
    this.settings = settings;
    this.dispatcher = dispatcher;
    this.log = log;
  }

  /** `signal`: the client left; the question is withdrawn. */
  async ask(question: GateQuestion, signal: AbortSignal): Promise<GateVerdict> {
    this.counters.calls++;
    // Outside the try: a question that cannot be serialised (a body nested too deeply) is the
    // request's fault, not the gate's; treated as a gate failure, on_error: allow would let the
    // request through unexamined.
    const payload = JSON.stringify(question);
    let error: string;
    try {
      const answer = await postToHook(this.settings, payload, { dispatcher: this.dispatcher, signal });
      const parsed = parseGateAnswer(answer.status, answer.body);
      if (!('error' in parsed)) {
        if (parsed.allow) this.counters.allowed++;
        else this.counters.denied++;
        return parsed.allow ? { allow: true } : { allow: false, ...(parsed.reason !== undefined && { reason: parsed.reason }) };
      }
      error = parsed.error;
    } catch (e) {
      error = (e as Error).message;
    }
    this.counters.errors++;
    const allow = this.settings.onError === 'allow';
    if (!signal.aborted) {
      this.log.warn(
        { hook: this.settings.name, target: this.settings.target, error, onError: this.settings.onError },
        `gate hook failed: ${allow ? 'allowing (fail open)' : 'denying (fail closed)'}`,
      );
    }
    return { allow, error };
  }
}
