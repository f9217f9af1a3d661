import type { IncomingHttpHeaders } from 'node:http';
import type { MessagePort } from 'node:worker_threads';
import { GatewayFailure, type GatewayError } from '../ir/error.ts';
import type { Admission, Governance, KeyRecord, KeyRef, OwnerGovernance, Pass, Reservation, Settlement } from './governance.ts';
import { presentedKey } from './key-carriers.ts';
import type { Person } from '../auth/identify.ts';
import type { IssuedKey, KeyIssuer } from '../auth/key-issuer.ts';

/**
 * Governance across threads: the main thread owns the store and the in-memory ledger and limiter
 * (LocalGovernance); each data-plane worker talks to it through a MessagePort. Budgets and rate
 * limits stay exact because every decision is made, one at a time, by the one owner.
 *
 * Messages are batched both ways: a worker sends the calls its requests made during one turn of
 * its event loop as one message, and the owner answers the calls of one message (and the
 * settlements one group commit finished) as one message. A message costs each side a wake-up, a
 * serialisation and an event far dearer than the few fields it carries, and a busy worker makes
 * several calls a turn (each request makes three: authorize, reserve, settle).
 */

type Call =
  | { readonly id: number; readonly op: 'authenticate'; readonly secret: string | undefined }
  | { readonly id: number; readonly op: 'admit'; readonly key: KeyRef; readonly admission: Admission }
  | { readonly id: number; readonly op: 'authorize'; readonly secret: string | undefined }
  | { readonly id: number; readonly op: 'reserve'; readonly key: KeyRef; readonly admission: Admission }
  | { readonly id: number; readonly op: 'settle'; readonly reservation: Reservation; readonly settlement: Settlement }
  | { readonly id: number; readonly op: 'release'; readonly reservation: Reservation }
  | { readonly id: number; readonly op: 'issueKey'; readonly person: Person }
  | { readonly id: 0; readonly op: 'markUsed'; readonly key: KeyRef };

type Reply =
  | { readonly id: number; readonly value: unknown }
  | { readonly id: number; readonly refusal: GatewayError }
  | { readonly id: number; readonly failure: string };

/** Main thread: answers one worker's port from the owning governance (and its self-serve key issuer). */
export function serveGovernance(port: MessagePort, local: OwnerGovernance, keyIssuer?: KeyIssuer): void {
  // Answers wait for the end of the current job (a microtask): those of one message, or of one
  // group commit's settlements, resolved together, leave together.
  const out = new Outbox<Reply>((replies) => port.postMessage(replies), queueMicrotask);
  port.on('message', (calls: readonly Call[]) => {
    for (const call of calls) {
      const reply = (message: Reply) => {
        if (call.id !== 0) out.push(message);
      };
      const refuse = (error: unknown) =>
        reply(
          error instanceof GatewayFailure
            ? { id: call.id, refusal: error.error }
            : { id: call.id, failure: error instanceof Error ? error.message : String(error) },
        );
      try {
        const value = answer(local, keyIssuer, call);
        // Settlements resolve after their group commit, and PostgreSQL answers everything with a promise.
        if (value instanceof Promise) value.then((v: unknown) => reply({ id: call.id, value: v }), refuse);
        else reply({ id: call.id, value });
      } catch (error) {
        refuse(error);
      }
    }
  });
}

/** Messages gathered and sent as one array when `schedule` runs the flush. */
class Outbox<T> {
  private items: T[] = [];
  private readonly send: (items: T[]) => void;
  private readonly schedule: (flush: () => void) => void;

  constructor(send: (items: T[]) => void, schedule: (flush: () => void) => void) {
    this.send = send;
    this.schedule = schedule;
  }

  push(item: T): void {
    this.items.push(item);
    if (this.items.length === 1) this.schedule(() => this.flush());
  }

  flush(): void {
    if (this.items.length === 0) return;
    const items = this.items;
    this.items = [];
    this.send(items);
  }
}

function answer(local: OwnerGovernance, keyIssuer: KeyIssuer | undefined, call: Call): unknown {
  switch (call.op) {
    case 'issueKey':
      if (keyIssuer === undefined) throw new Error('self-serve keys are not enabled');
      return keyIssuer.issue(call.person);
    case 'authenticate':
      return local.authenticatePresented(call.secret);
    case 'admit':
      return local.admit(call.key, call.admission);
    case 'authorize':
      return local.authorizePresented(call.secret);
    case 'reserve':
      return local.reserve(call.key, call.admission);
    case 'settle':
      return local.settle(call.reservation, call.settlement);
    case 'release':
      return local.release(call.reservation);
    case 'markUsed':
      return local.markUsed(call.key);
  }
}

type Pending = { resolve(value: unknown): void; reject(error: unknown): void };

/** Worker thread: the Governance the pipeline calls, answered by the main thread. */
export class GovernanceProxy implements Governance {
  private readonly port: MessagePort;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  /** Calls of this turn of the event loop (every request's I/O callbacks run first), sent as one message. */
  private readonly out: Outbox<Call>;

  constructor(port: MessagePort) {
    this.port = port;
    this.out = new Outbox<Call>((calls) => port.postMessage(calls), setImmediate);
    port.on('message', (replies: readonly Reply[]) => {
      for (const reply of replies) {
        const waiting = this.pending.get(reply.id);
        if (waiting === undefined) continue;
        this.pending.delete(reply.id);
        if ('value' in reply) waiting.resolve(reply.value);
        else if ('refusal' in reply) waiting.reject(new GatewayFailure(reply.refusal));
        else waiting.reject(new Error(`governance: ${reply.failure}`));
      }
      if (this.pending.size === 0) this.port.unref();
    });
    // Idle between calls: the port must not keep the worker alive on its own.
    port.unref();
  }

  /** The key carriers are read here; only the presented string crosses to the owner. */
  authenticate(headers: IncomingHttpHeaders, query: URLSearchParams): Promise<KeyRecord> {
    return this.call({ op: 'authenticate', secret: presentedKey(headers, query) }) as Promise<KeyRecord>;
  }

  /** Before the body: key and rate limit (only the presented string crosses). */
  authorize(headers: IncomingHttpHeaders, query: URLSearchParams): Promise<Pass> {
    return this.call({ op: 'authorize', secret: presentedKey(headers, query) }) as Promise<Pass>;
  }

  /** After the body: price and budget. */
  reserve(key: KeyRef, admission: Admission): Promise<Reservation> {
    return this.call({ op: 'reserve', key: { id: key.id }, admission }) as Promise<Reservation>;
  }

  admit(key: KeyRef, admission: Admission): Promise<Reservation> {
    return this.call({ op: 'admit', key: { id: key.id }, admission }) as Promise<Reservation>;
  }

  settle(reservation: Reservation, settlement: Settlement): Promise<boolean> {
    return this.call({ op: 'settle', reservation, settlement }) as Promise<boolean>;
  }

  release(reservation: Reservation): Promise<void> {
    return this.call({ op: 'release', reservation }) as Promise<void>;
  }

  /** Self-serve key issuance (server/auth/key-issuer.ts) in the main thread. */
  issueKey(person: Person): Promise<IssuedKey> {
    return this.call({ op: 'issueKey', person }) as Promise<IssuedKey>;
  }

  markUsed(key: KeyRef): void {
    this.out.push({ id: 0, op: 'markUsed', key: { id: key.id } });
  }

  close(): void {
    this.out.flush();
    for (const waiting of this.pending.values()) waiting.reject(new Error('governance: the worker is closing'));
    this.pending.clear();
    this.port.close();
  }

  private call(call: DistributiveOmit<Exclude<Call, { op: 'markUsed' }>, 'id'>): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      // Referenced only while an answer is awaited (the reply handler unrefs it again).
      if (this.pending.size === 0) this.port.ref();
      this.pending.set(id, { resolve, reject });
      this.out.push({ ...call, id } as Call);
    });
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
