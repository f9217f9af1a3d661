import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import type { Logger } from '../shared/logger.ts';
import type { RequestObserver, RequestRecord } from '../observability/request-record.ts';
import { retryAfterSeconds } from '../upstream/retry-after.ts';
import { BoundedQueue } from './bounded-queue.ts';
import type { WebhookCounters } from './hook-counters.ts';
import type { WebhookEventType, WebhookSettings } from './hook-settings.ts';
import { postToHook } from './post-to-hook.ts';
import { backoffMs } from './webhook-backoff.ts';
import { webhookEvent, webhookEventType, type WebhookEvent } from './webhook-event.ts';

/** Waiting and chance, injected so tests run retries without waiting for them. */
export interface DeliveryTimers {
  /** Resolves after `ms`; rejects when `signal` aborts (the gateway is stopping). */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /** Uniform in [0, 1), for the backoff's jitter. */
  random(): number;
  /** The wall clock, for the events' created_at. */
  now(): number;
}

export const SYSTEM_TIMERS: DeliveryTimers = {
  // Unreferenced: a retry waiting never keeps the process alive on its own.
  sleep: (ms, signal) => sleep(ms, undefined, { signal, ref: false }),
  random: () => Math.random(),
  now: () => Date.now(),
};

/** Answers worth another try: the receiver was busy or broken, not the event wrong. */
const RETRYABLE = (status: number) => status === 408 || status === 429 || status >= 500;
/** Drops are warned about at most this often, with the count since the last warning. */
const DROP_WARNING_INTERVAL_MS = 10_000;

interface PendingEvent {
  readonly id: string;
  readonly type: WebhookEventType;
  readonly body: string;
}

/**
 * One webhook hook (config `kind: webhook`): a RequestObserver that turns each finished request into
 * an event and POSTs it from a bounded queue, at most `concurrency` at a time, retrying with
 * exponential backoff and jitter. `record` only queues (never waits, never throws): a full queue
 * drops the new event and counts it. `close` flushes what it can within a deadline.
 */
export class WebhookDelivery implements RequestObserver {
  readonly settings: WebhookSettings;
  private readonly queue: BoundedQueue<PendingEvent>;
  private readonly totals = { delivered: 0, failed: 0, retries: 0, dropped: 0 };
  private inFlight = 0;
  private closing = false;
  private readonly stopping = new AbortController();
  private readonly idleWaiters: (() => void)[] = [];
  private droppedSinceWarning = 0;
  private lastDropWarning = Number.NEGATIVE_INFINITY;
  private readonly dispatcher: Dispatcher;
  private readonly log: Logger;
  private readonly timers: DeliveryTimers;

  constructor(settings: WebhookSettings, options: { dispatcher: Dispatcher; log: Logger; timers?: DeliveryTimers }) {
    this.settings = settings;
    this.queue = new BoundedQueue(settings.queueSize);
    this.dispatcher = options.dispatcher;
    this.log = options.log.child({ hook: settings.name, target: settings.target });
    this.timers = options.timers ?? SYSTEM_TIMERS;
  }

  record(record: RequestRecord): void {
    try {
      if (!this.settings.events.includes(webhookEventType(record))) return;
      this.enqueue(webhookEvent(record, { id: `evt_${randomBytes(12).toString('hex')}`, now: new Date(this.timers.now()) }));
    } catch (error) {
      this.log.error({ err: error }, 'webhook event could not be queued');
    }
  }

  /** Queues one event; false when it was dropped (queue full, or closing). */
  enqueue(event: WebhookEvent): boolean {
    if (this.closing || !this.queue.push({ id: event.id, type: event.type, body: JSON.stringify(event) })) {
      this.drop(1);
      return false;
    }
    this.pump();
    return true;
  }

  get counters(): WebhookCounters {
    return { queued: this.queue.length, inFlight: this.inFlight, ...this.totals };
  }

  /**
   * Stops taking events and sends what is queued, retries included, until `deadlineMs` has passed;
   * then cancels what is left (counted as dropped).
   */
  async close(deadlineMs: number): Promise<void> {
    this.closing = true;
    if (!this.isIdle()) {
      const idle = new Promise<void>((resolve) => this.idleWaiters.push(resolve));
      const deadline = new AbortController();
      await Promise.race([idle, sleep(deadlineMs, undefined, { signal: deadline.signal, ref: false }).catch(() => undefined)]);
      deadline.abort();
    }
    this.stopping.abort();
    this.drop(this.queue.clear());
    // Cancelled sends and waits settle at once, each counting its event as dropped.
    if (this.inFlight > 0) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    if (this.droppedSinceWarning > 0) this.warnDropped();
  }

  private pump(): void {
    while (this.inFlight < this.settings.concurrency && !this.stopping.signal.aborted) {
      const next = this.queue.shift();
      if (next === undefined) break;
      this.inFlight++;
      void this.deliver(next).finally(() => {
        this.inFlight--;
        this.pump();
        if (this.isIdle()) for (const resolve of this.idleWaiters.splice(0)) resolve();
      });
    }
  }

  private isIdle(): boolean {
    return this.inFlight === 0 && this.queue.length === 0;
  }

  /** Sends one event until it is taken, refused for good, out of retries, or the gateway stops. */
  private async deliver(event: PendingEvent): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      let reason: string;
      let retryAfterMs: number | undefined;
      try {
        const answer = await postToHook(this.settings, event.body, {
          dispatcher: this.dispatcher,
          signal: this.stopping.signal,
          headers: { 'x-gateway-event': event.type, 'x-gateway-event-id': event.id, 'x-gateway-delivery-attempt': String(attempt) },
        });
        if (answer.status >= 200 && answer.status <= 299) {
          this.totals.delivered++;
          return;
        }
        reason = `answered HTTP ${answer.status}`;
        if (!RETRYABLE(answer.status)) {
          this.totals.failed++;
          this.log.warn({ eventId: event.id, status: answer.status }, `webhook refused the event (${reason}); not retried`);
          return;
        }
        const seconds = retryAfterSeconds(answer.headers as IncomingHttpHeaders);
        retryAfterMs = seconds === undefined ? undefined : seconds * 1000;
      } catch (error) {
        if (this.stopping.signal.aborted) return this.drop(1);
        reason = (error as Error).message;
      }
      if (attempt > this.settings.maxRetries) {
        this.totals.failed++;
        this.log.warn({ eventId: event.id, attempts: attempt }, `webhook delivery failed (${reason}); retries used up`);
        return;
      }
      this.totals.retries++;
      try {
        await this.timers.sleep(backoffMs(this.settings.backoff, attempt - 1, this.timers.random, retryAfterMs), this.stopping.signal);
      } catch {
        return this.drop(1);
      }
    }
  }

  private drop(count: number): void {
    if (count === 0) return;
    this.totals.dropped += count;
    this.droppedSinceWarning += count;
    if (this.timers.now() - this.lastDropWarning >= DROP_WARNING_INTERVAL_MS) this.warnDropped();
  }

  private warnDropped(): void {
    this.log.warn(
      { dropped: this.droppedSinceWarning, totalDropped: this.totals.dropped, queueSize: this.settings.queueSize },
      'webhook events dropped (queue full or gateway stopping)',
    );
    this.droppedSinceWarning = 0;
    this.lastDropWarning = this.timers.now();
  }
}
