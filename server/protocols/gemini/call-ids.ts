import { createHash } from 'node:crypto';
import { invalidField } from '../shared/invalid-field.ts';
import type { GeminiStreamChunk } from './wire.ts';

/**
 * Gemini pairs a functionResponse with its functionCall by function NAME (an `id` is optional and
 * usually absent), while the IR pairs them by id. The decoders therefore give id-less calls a
 * deterministic id derived from the name and the call's position:
 *
 *   call_<name>_<n>             in a request: the n-th id-less call of that name in `contents` (from 0)
 *   call_<scope>_<name>_<n>     in a response: scope is the IR response id, so that calls of later
 *                               turns get other ids than the same call of an earlier turn
 *
 * (characters outside [A-Za-z0-9_-] become `_`, and the name is cut so the id stays within 64
 * characters, the strictest tool-id limit among the six protocols). An id-less functionResponse
 * takes the id of the oldest call of that name still waiting for its result, which is the call
 * Gemini itself would pair it with.
 */
export function derivedCallId(name: string, ordinal: number, scope?: string): string {
  const tail = `_${ordinal}`;
  const head = scope === undefined ? safe(name) : `${safe(scope)}_${safe(name)}`;
  return `call_${head.slice(0, 64 - 'call_'.length - tail.length)}${tail}`;
}

const safe = (text: string) => text.replace(/[^A-Za-z0-9_-]/g, '_');

/** Ids of a response's calls: explicit ones kept, the others derived within the response. */
export class ResponseCallIds {
  private readonly scope: string;
  private readonly counts = new Map<string, number>();

  constructor(scope: string) {
    this.scope = scope;
  }

  call(name: string, id: string | undefined): string {
    if (id !== undefined && id !== '') return id;
    const n = this.counts.get(name) ?? 0;
    this.counts.set(name, n + 1);
    return derivedCallId(name, n, this.scope);
  }
}

/** Ids across a request's history, pairing id-less results with their calls by name and order. */
export class RequestCallIds {
  private readonly counts = new Map<string, number>();
  /** Function name -> ids of its calls that have no result yet, oldest first. */
  private readonly pending = new Map<string, string[]>();

  call(name: string, id: string | undefined): string {
    let callId = id;
    if (callId === undefined || callId === '') {
      const n = this.counts.get(name) ?? 0;
      this.counts.set(name, n + 1);
      callId = derivedCallId(name, n);
    }
    const queue = this.pending.get(name) ?? [];
    queue.push(callId);
    this.pending.set(name, queue);
    return callId;
  }

  result(name: string, id: string | undefined, path: string): string {
    const queue = this.pending.get(name) ?? [];
    if (id !== undefined && id !== '') {
      const at = queue.indexOf(id);
      if (at !== -1) queue.splice(at, 1);
      return id;
    }
    const callId = queue.shift();
    if (callId === undefined) throw invalidField(path, `functionResponse "${name}" answers no earlier functionCall of that name`);
    return callId;
  }
}

/**
 * The IR id of a response: its responseId, or when an upstream sends none, one derived from the
 * body itself (never random: the same answer always decodes the same way).
 */
export function responseIdOf(response: GeminiStreamChunk): string {
  if (typeof response.responseId === 'string' && response.responseId !== '') return response.responseId;
  return `gemini_${createHash('sha256').update(JSON.stringify(response)).digest('hex').slice(0, 24)}`;
}
