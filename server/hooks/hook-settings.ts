/** The events a webhook may be sent (config `events:`); see webhook-event.ts for their shape. */
export const WEBHOOK_EVENTS = ['request.completed', 'request.failed'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number];

/** What a gate hook is asked about (the only event a gate sees). */
export const GATE_EVENT = 'request.gate';

/** What every hook has: where it is called, with which headers, within what time. */
interface HookCommon {
  readonly name: string;
  /** The URL to POST to (it may hold a credential: never logged or shown, see `target`). */
  readonly url: string;
  /** The URL as the admin API and logs show it: credentials masked (hook-target.ts). */
  readonly target: string;
  /** Header values with their secrets read. */
  readonly headers: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
}

/** A synchronous hook asked before the first upstream attempt (gate-hook.ts). */
export interface GateHookSettings extends HookCommon {
  readonly kind: 'gate';
  /** What an error (timeout, non-2xx, unreadable answer) means: allow is fail-open, deny fail-closed. */
  readonly onError: 'allow' | 'deny';
  /** Send the client's request body too (prompts included). */
  readonly includeContent: boolean;
}

export interface BackoffSettings {
  readonly initialMs: number;
  readonly maxMs: number;
}

/** An asynchronous hook that receives an event after each finished request (webhook-delivery.ts). */
export interface WebhookSettings extends HookCommon {
  readonly kind: 'webhook';
  readonly events: readonly WebhookEventType[];
  readonly queueSize: number;
  readonly concurrency: number;
  readonly maxRetries: number;
  readonly backoff: BackoffSettings;
}

export type HookSettings = GateHookSettings | WebhookSettings;

export const HOOK_DEFAULTS = {
  gateTimeoutMs: 1000,
  webhookTimeoutMs: 5000,
  queueSize: 10_000,
  concurrency: 4,
  maxRetries: 5,
  backoff: { initialMs: 500, maxMs: 30_000 },
} as const;
