import type { IncomingHttpHeaders } from 'node:http';
import type { MessagePort } from 'node:worker_threads';
import { GatewayFailure, type GatewayError } from '../ir/error.ts';
import type { Admission, Governance, KeyRecord, KeyRef, OwnerGovernance, Pass, Reservation, Settlement } from './governance.ts';
import {
  callLength,
  OP_AUTHORIZE,
  OP_MARK_USED,
  OP_OTHER,
  OP_RELEASE,
  OP_RESERVE,
  OP_SETTLE,
  readAdmission,
  readReservation,
  readSettlement,
  REPLY_FAILURE,
  REPLY_FORGET_KEYS,
  REPLY_PASS,
  REPLY_REFUSAL,
  REPLY_RESERVATION,
  REPLY_VALUE,
  replyLength,
  writeReserve,
  writeSettle,
  type OtherCall,
} from './governance-wire.ts';
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
 * several calls a turn (each request makes three: authorize, reserve, settle). Each message is one
 * flat array of primitives (governance-wire.ts), and a key's record is sent to a worker once per
 * version: an authorize answer names a record the worker already holds by its id.
 */

/** Key records the owner remembers sending to one worker; past this both sides forget them all. */
const KEY_RECORDS_PER_PORT = 10_000;

/**
 * Main thread: answers one worker's port from the owning governance (and its self-serve key
 * issuer). `keyRecords`: how many keys' records the worker is let hold (tests make it small).
 */
export function serveGovernance(port: MessagePort, local: OwnerGovernance, keyIssuer?: KeyIssuer, keyRecords = KEY_RECORDS_PER_PORT): void {
  // Answers wait for the end of the current job (a microtask): those of one message, or of one
  // group commit's settlements, resolved together, leave together.
  const out = new Outbox((replies) => port.postMessage(replies), queueMicrotask);
  /**
   * The record of each key last sent to this worker. Records are never changed in place (a change
   * makes a new one), so the same object means the worker holds it as it is now.
   */
  const sent = new Map<string, KeyRecord>();
  const keyOnWire = (key: KeyRecord): KeyRecord | string => {
    if (sent.get(key.id) === key) return key.id;
    if (sent.size >= keyRecords) {
      sent.clear();
      out.message().push(0, REPLY_FORGET_KEYS);
    }
    sent.set(key.id, key);
    return key;
  };
  const answer = (id: number, op: number, value: unknown) => {
    if (op === OP_AUTHORIZE) {
      const pass = value as Pass;
      const key = keyOnWire(pass.key); // first: it may tell the worker to forget the records it holds
      out.message().push(id, REPLY_PASS, key, 'refusal' in pass ? pass.refusal : undefined);
    } else if (op === OP_RESERVE) {
      const reservation = value as Reservation;
      out.message().push(id, REPLY_RESERVATION, reservation.id, reservation.keyId, reservation.microcents);
    } else {
      out.message().push(id, REPLY_VALUE, value);
    }
  };
  const refuse = (id: number, error: unknown) => {
    if (error instanceof GatewayFailure) out.message().push(id, REPLY_REFUSAL, error.error);
    else out.message().push(id, REPLY_FAILURE, error instanceof Error ? error.message : String(error));
  };
  port.on('message', (calls: readonly unknown[]) => {
    for (let at = 0; at < calls.length; at += callLength(calls[at] as number)) {
      const op = calls[at] as number;
      if (op === OP_MARK_USED) {
        local.markUsed({ id: calls[at + 1] as string });
        continue;
      }
      const id = calls[at + 1] as number;
      let value: unknown;
      try {
        value = serve(local, keyIssuer, op, calls, at + 2);
      } catch (error) {
        refuse(id, error);
        continue;
      }
      // Settlements resolve after their group commit, and PostgreSQL answers everything with a promise.
      if (value instanceof Promise)
        value.then(
          (v: unknown) => answer(id, op, v),
          (error: unknown) => refuse(id, error),
        );
      else answer(id, op, value);
    }
  });
}

/** The owner's answer to the call at `at` (its arguments, after op and id). */
function serve(local: OwnerGovernance, keyIssuer: KeyIssuer | undefined, op: number, m: readonly unknown[], at: number): unknown {
  switch (op) {
    case OP_AUTHORIZE:
      return local.authorizePresented(m[at] as string | undefined);
    case OP_RESERVE:
      return local.reserve({ id: m[at] as string }, readAdmission(m, at + 1));
    case OP_SETTLE:
      return local.settle(readReservation(m, at), readSettlement(m, at + 3));
    case OP_RELEASE:
      return local.release(readReservation(m, at));
    default: {
      const call = m[at] as OtherCall;
      if (call.op === 'authenticate') return local.authenticatePresented(call.secret);
      if (call.op === 'admit') return local.admit({ id: call.keyId }, call.admission);
      if (keyIssuer === undefined) throw new Error('self-serve keys are not enabled');
      return keyIssuer.issue(call.person as Person);
    }
  }
}

/** One flat message gathered and sent when `schedule` runs the flush. */
class Outbox {
  private items: unknown[] = [];
  private scheduled = false;
  private readonly send: (items: unknown[]) => void;
  private readonly schedule: (flush: () => void) => void;
  private readonly flushNow = () => this.flush();

  constructor(send: (items: unknown[]) => void, schedule: (flush: () => void) => void) {
    this.send = send;
    this.schedule = schedule;
  }

  /** The message being gathered, to append to (its flush is scheduled). */
  message(): unknown[] {
    if (!this.scheduled) {
      this.scheduled = true;
      this.schedule(this.flushNow);
    }
    return this.items;
  }

  flush(): void {
    this.scheduled = false;
    if (this.items.length === 0) return;
    const items = this.items;
    this.items = [];
    this.send(items);
  }
}

type Pending = { resolve(value: unknown): void; reject(error: unknown): void };

/** Worker thread: the Governance the pipeline calls, answered by the main thread. */
export class GovernanceProxy implements Governance {
  private readonly port: MessagePort;
  private readonly pending = new Map<number, Pending>();
  /** The key records the owner sent, by id: its authorize answers name them. */
  private readonly records = new Map<string, KeyRecord>();
  private nextId = 1;
  /** Calls of this turn of the event loop (every request's I/O callbacks run first), sent as one message. */
  private readonly out: Outbox;

  constructor(port: MessagePort) {
    this.port = port;
    this.out = new Outbox((calls) => port.postMessage(calls), setImmediate);
    port.on('message', (replies: readonly unknown[]) => {
      for (let at = 0; at < replies.length; at += replyLength(replies[at + 1] as number)) this.receive(replies, at);
      if (this.pending.size === 0) this.port.unref();
    });
    // Idle between calls: the port must not keep the worker alive on its own.
    port.unref();
  }

  /** The key carriers are read here; only the presented string crosses to the owner. */
  authenticate(headers: IncomingHttpHeaders, query: URLSearchParams): Promise<KeyRecord> {
    return this.other({ op: 'authenticate', secret: presentedKey(headers, query) }) as Promise<KeyRecord>;
  }

  /** Before the body: key and rate limit (only the presented string crosses). */
  authorize(headers: IncomingHttpHeaders, query: URLSearchParams): Promise<Pass> {
    const id = this.nextId++;
    this.out.message().push(OP_AUTHORIZE, id, presentedKey(headers, query));
    return this.wait(id) as Promise<Pass>;
  }

  /** After the body: price and budget. */
  reserve(key: KeyRef, admission: Admission): Promise<Reservation> {
    const id = this.nextId++;
    writeReserve(this.out.message(), id, key.id, admission);
    return this.wait(id) as Promise<Reservation>;
  }

  admit(key: KeyRef, admission: Admission): Promise<Reservation> {
    return this.other({ op: 'admit', keyId: key.id, admission }) as Promise<Reservation>;
  }

  settle(reservation: Reservation, settlement: Settlement): Promise<boolean> {
    const id = this.nextId++;
    writeSettle(this.out.message(), id, reservation, settlement);
    return this.wait(id) as Promise<boolean>;
  }

  release(reservation: Reservation): Promise<void> {
    const id = this.nextId++;
    this.out.message().push(OP_RELEASE, id, reservation.id, reservation.keyId, reservation.microcents);
    return this.wait(id) as Promise<void>;
  }

  /** Self-serve key issuance (server/auth/key-issuer.ts) in the main thread. */
  issueKey(person: Person): Promise<IssuedKey> {
    return this.other({ op: 'issueKey', person }) as Promise<IssuedKey>;
  }

  markUsed(key: KeyRef): void {
    this.out.message().push(OP_MARK_USED, key.id);
  }

  close(): void {
    this.out.flush();
    for (const waiting of this.pending.values()) waiting.reject(new Error('governance: the worker is closing'));
    this.pending.clear();
    this.port.close();
  }

  private other(call: OtherCall): Promise<unknown> {
    const id = this.nextId++;
    this.out.message().push(OP_OTHER, id, call);
    return this.wait(id);
  }

  private wait(id: number): Promise<unknown> {
    return new Promise((resolve, reject) => {
      // Referenced only while an answer is awaited (the reply handler unrefs it again).
      if (this.pending.size === 0) this.port.ref();
      this.pending.set(id, { resolve, reject });
    });
  }

  /** One answer, at `at` in a message: its id, its tag, the tag's slots. */
  private receive(m: readonly unknown[], at: number): void {
    const tag = m[at + 1] as number;
    if (tag === REPLY_FORGET_KEYS) {
      this.records.clear();
      return;
    }
    // The records follow the owner's answers in order, whether or not anyone still waits for this one.
    let key: KeyRecord | undefined;
    if (tag === REPLY_PASS) {
      const sent = m[at + 2] as KeyRecord | string;
      if (typeof sent === 'string') key = this.records.get(sent);
      else this.records.set(sent.id, (key = sent));
    }
    const id = m[at] as number;
    const waiting = this.pending.get(id);
    if (waiting === undefined) return;
    this.pending.delete(id);
    if (tag === REPLY_VALUE) waiting.resolve(m[at + 2]);
    else if (tag === REPLY_RESERVATION) waiting.resolve(readReservation(m, at + 2));
    else if (tag === REPLY_PASS) {
      const refusal = m[at + 3] as GatewayError | undefined;
      if (key === undefined) waiting.reject(new Error('governance: an answer named a key record this worker was never sent'));
      else waiting.resolve(refusal === undefined ? { key } : { key, refusal });
    } else if (tag === REPLY_REFUSAL) waiting.reject(new GatewayFailure(m[at + 2] as GatewayError));
    else waiting.reject(new Error(`governance: ${String(m[at + 2])}`));
  }
}
