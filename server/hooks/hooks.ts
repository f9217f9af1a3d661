import { Agent } from 'undici';
import type { Logger } from '../shared/logger.ts';
import { GateHook } from './gate-hook.ts';
import type { GateCounters, WebhookCounters } from './hook-counters.ts';
import { GATE_EVENT, type HookSettings } from './hook-settings.ts';
import { WebhookDelivery, type DeliveryTimers } from './webhook-delivery.ts';

/** One hook as the admin API lists it: plain data, never a credential. */
export interface HookStatus {
  readonly name: string;
  readonly kind: 'gate' | 'webhook';
  /** The URL with credentials masked (hook-target.ts). */
  readonly target: string;
  readonly events: readonly string[];
  readonly timeoutMs: number;
  readonly onError?: 'allow' | 'deny';
  readonly gate?: GateCounters;
  readonly delivery?: WebhookCounters;
}

/** How long stopping waits for queued webhook events to be sent. */
export const DEFAULT_FLUSH_MS = 5000;

/**
 * The configured hooks of one gateway: gates for the pipeline, webhooks as request observers, one
 * keep-alive connection pool for all of them (apart from the upstreams').
 */
export class Hooks {
  readonly gates: readonly GateHook[];
  readonly webhooks: readonly WebhookDelivery[];
  /** Both kinds, in config order. */
  private readonly all: readonly (GateHook | WebhookDelivery)[];
  private readonly agent = new Agent({ keepAliveTimeout: 30_000 });

  constructor(settings: readonly HookSettings[], options: { log: Logger; timers?: DeliveryTimers }) {
    const log = options.log.child({ component: 'hooks' });
    this.all = settings.map((s) =>
      s.kind === 'gate'
        ? new GateHook(s, this.agent, log)
        : new WebhookDelivery(s, { dispatcher: this.agent, log, ...(options.timers !== undefined && { timers: options.timers }) }),
    );
    this.gates = this.all.filter((h) => h instanceof GateHook);
    this.webhooks = this.all.filter((h) => h instanceof WebhookDelivery);
  }

  /** Every hook in config order, with its counters now. */
  list(): HookStatus[] {
    return this.all.map((hook): HookStatus => {
      const common = { name: hook.settings.name, target: hook.settings.target, timeoutMs: hook.settings.timeoutMs };
      return hook instanceof GateHook
        ? { ...common, kind: 'gate', events: [GATE_EVENT], onError: hook.settings.onError, gate: { ...hook.counters } }
        : { ...common, kind: 'webhook', events: [...hook.settings.events], delivery: hook.counters };
    });
  }

  /** After the servers have stopped: queued events are sent within `flushMs`, then connections close. */
  async close(flushMs = DEFAULT_FLUSH_MS): Promise<void> {
    await Promise.all(this.webhooks.map((w) => w.close(flushMs)));
    await this.agent.close();
  }
}
