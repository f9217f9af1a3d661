// Everything the matrix allows to differ, named and explained. A protocol's decode of its wire file
// must equal the scenario's IR after the rules for that protocol are applied to the IR: the rules
// turn the scenario's IR into exactly what that protocol decodes, so every value is still compared
// (nothing is stripped). When an IR decoded from protocol A is encoded for protocol B, A's rules
// that changed something say what that does to B's wire file (`onWire`) and which warnings B's
// encoder gives (`warnings`). Nothing else may differ; a rule that no fixture needs fails the suite.
import { isDeepStrictEqual } from 'node:util';
import type { ChatRequest, ChatResponse, ContentBlock, FinishReason, Message, ProtocolId, ToolDefinition } from '../../server/ir/index.ts';
import { LANE, type Json, type Side } from './matrix-fixtures.ts';

export interface Normalisation<T> {
  /** Stable name, shown in test titles and listed in test/fixtures/matrix/README.md. */
  readonly name: string;
  readonly protocols: readonly ProtocolId[];
  readonly why: string;
  /** The scenario's IR as `protocol` decodes it; the IR unchanged where the rule has nothing to do. */
  readonly decoded: (ir: T, protocol: ProtocolId) => T;
  /** For an IR decoded from one of `protocols` and encoded for `target`: target's wire file, adjusted. */
  readonly onWire?: Partial<Record<ProtocolId, (wire: Json, ir: T) => Json>>;
  /** The warning paths target's encoder gives for the difference (none unless listed). */
  readonly warnings?: Partial<Record<ProtocolId, (ir: T) => string[]>>;
}

const ALL: readonly ProtocolId[] = ['openai', 'responses', 'anthropic', 'gemini', 'bedrock', 'cohere'];

/** The encoders' clock, pinned by the test: a response without `created` is stamped with it. */
export const ENCODE_TIME = 1763820600;

// ---------------------------------------------------------------------------------------------
// Request side
// ---------------------------------------------------------------------------------------------

export const REQUEST_NORMALISATIONS: readonly Normalisation<ChatRequest>[] = [
  {
    name: 'source',
    protocols: ALL,
    why: 'the IR names the protocol it was decoded from; request.ir.json holds a placeholder',
    decoded: (ir, protocol) => ({ ...ir, source: protocol }),
  },
  {
    name: 'model-in-body',
    protocols: ['openai', 'responses', 'anthropic', 'cohere'],
    why:
      'the body names the model, and each wire file is what the encoder wrote for the lane, so the decoded model is the lane model; ' +
      "gemini and bedrock take the client's name from the path (client-model), as request.ir.json says",
    decoded: (ir) => ({ ...ir, model: LANE.model }),
  },
  {
    name: 'stream-usage-always',
    protocols: ['responses', 'anthropic', 'gemini', 'bedrock', 'cohere'],
    why: 'these streams always carry usage, so the decoder says streamUsage: true (only OpenAI Chat asks for it)',
    decoded: (ir) => ({ ...ir, streamUsage: true }),
  },
  {
    name: 'responses-tool-strict-false',
    protocols: ['responses'],
    why:
      'Responses applies strict mode to a tool without `strict`, so its encoder writes strict: false for an IR tool without one, ' +
      "and its decoder keeps that explicit false (the IR's absent and false mean the same: not strict)",
    decoded: (ir) => (ir.tools === undefined ? ir : { ...ir, tools: ir.tools.map((t): ToolDefinition => ({ ...t, strict: t.strict ?? false })) }),
    onWire: {
      openai: (wire) => withEach(wire, ['tools'], (tool) => ({ ...tool, function: { ...(tool.function as Json), strict: false } })),
      anthropic: (wire) => withEach(wire, ['tools'], (tool) => ({ ...tool, strict: false })),
      bedrock: (wire) => withEach(wire, ['toolConfig', 'tools'], (tool) => ({ ...tool, toolSpec: { ...(tool.toolSpec as Json), strict: false } })),
    },
  },
  {
    name: 'responses-image-detail-auto',
    protocols: ['responses'],
    why:
      'OpenAI wants a detail level on every Responses image, so the encoder writes detail: "auto" for an IR image without one, ' +
      'and the decoder keeps it (absent and "auto" mean the same)',
    decoded: (ir) => ({ ...ir, messages: ir.messages.map((m) => mapImages(m, (b) => ({ ...b, detail: b.detail ?? 'auto' }))) }),
    onWire: {
      openai: (wire) => withImageUrlDetail(wire),
      cohere: (wire) => withImageUrlDetail(wire),
    },
    warnings: {
      // These protocols have no detail level: their encoders report it as dropped.
      anthropic: (ir) => imagePaths(ir).map((p) => `${p}.detail`),
      gemini: (ir) => imagePaths(ir).map((p) => `${p}.detail`),
      bedrock: (ir) => imagePaths(ir).map((p) => `${p}.detail`),
    },
  },
];

// ---------------------------------------------------------------------------------------------
// Response side
// ---------------------------------------------------------------------------------------------

/** Each protocol's own word for how the answer ended (Finish.raw keeps it); response.ir.json says null. */
export const RAW_FINISH: Readonly<Record<ProtocolId, Partial<Record<FinishReason, string>>>> = {
  openai: { stop: 'stop', tool_calls: 'tool_calls', length: 'length' },
  // Responses has no finish reason: raw is the status, or the incomplete reason.
  responses: { stop: 'completed', tool_calls: 'completed', length: 'max_output_tokens' },
  anthropic: { stop: 'end_turn', tool_calls: 'tool_use', length: 'max_tokens' },
  // A function call ends with STOP like any other turn.
  gemini: { stop: 'STOP', tool_calls: 'STOP', length: 'MAX_TOKENS' },
  bedrock: { stop: 'end_turn', tool_calls: 'tool_use', length: 'max_tokens' },
  cohere: { stop: 'COMPLETE', tool_calls: 'TOOL_CALL', length: 'MAX_TOKENS' },
};

function rawFinish(protocol: ProtocolId, reason: FinishReason): string {
  const raw = RAW_FINISH[protocol][reason];
  if (raw === undefined) throw new Error(`RAW_FINISH has no ${protocol} word for "${reason}": add it`);
  return raw;
}

export const RESPONSE_NORMALISATIONS: readonly Normalisation<ChatResponse>[] = [
  {
    name: 'finish-raw',
    protocols: ALL,
    why: "Finish.raw is the wire's own word (table RAW_FINISH); response.ir.json says null",
    decoded: (ir, protocol) => ({ ...ir, finish: { ...ir.finish, raw: rawFinish(protocol, ir.finish.reason) } }),
  },
  {
    name: 'anthropic-stop-sequence-null',
    protocols: ['anthropic'],
    why: 'Anthropic always states stop_sequence, null when none matched, and the decoder keeps that null',
    decoded: (ir) => ({ ...ir, finish: { ...ir.finish, stopSequence: null } }),
    onWire: {
      // "None matched" is known, so the Bedrock encoder tells a Claude-on-Bedrock client so.
      bedrock: (wire) => ({ ...wire, additionalModelResponseFields: { stop_sequence: null } }),
    },
  },
  {
    name: 'no-created',
    protocols: ['anthropic', 'bedrock', 'cohere'],
    why: 'the body has no creation time',
    decoded: (ir) => {
      const { created: _created, ...rest } = ir;
      return rest;
    },
    onWire: {
      // OpenAI requires a creation time: the encoders stamp their clock.
      openai: (wire) => ({ ...wire, created: ENCODE_TIME }),
      responses: (wire) => ({ ...wire, created_at: ENCODE_TIME }),
      // createTime is optional: nothing to say.
      gemini: (wire) => {
        const { createTime: _createTime, ...rest } = wire;
        return rest;
      },
    },
  },
  {
    name: 'no-id-no-model',
    protocols: ['bedrock'],
    why:
      "a Converse body names neither the response nor the model: the decoder says '' for both, and the pipeline " +
      '(attempt-translated.ts withIdentity) fills in the request id and the lane model before encoding',
    decoded: (ir) => ({ ...ir, id: '', model: '' }),
  },
  {
    name: 'no-model',
    protocols: ['cohere'],
    why: "a v2 Chat response names no model: the decoder says '', and the pipeline (withIdentity) fills in the lane model",
    decoded: (ir) => ({ ...ir, model: '' }),
  },
];

/**
 * What the pipeline does between decoding an upstream answer and encoding it for the client
 * (server/gateway/attempt-translated.ts, withIdentity): an empty id becomes the request id (here
 * the scenario's id stands in for it) and an empty model the lane's model.
 */
export function withPipelineIdentity(decoded: ChatResponse, scenarioIr: ChatResponse): ChatResponse {
  return { ...decoded, id: decoded.id || scenarioIr.id, model: decoded.model || LANE.model };
}

// ---------------------------------------------------------------------------------------------
// Known codec bugs: each marks the checks whose output the named encoder writes as `it.fails`.
// ---------------------------------------------------------------------------------------------

export interface KnownBug {
  readonly name: string;
  readonly scenario: string;
  readonly side: Side;
  /** The protocol whose encoder is wrong: every check that encodes for it in this scenario fails. */
  readonly encoder: ProtocolId;
  readonly file: string;
  readonly what: string;
  /** The encoder's wrong output, as a change to the right wire file: pins the bug, so no other failure hides behind it. */
  readonly deviation: (wire: Json) => Json;
}

/** None open: the last one (an incomplete Response's message item written as completed) is fixed. */
export const KNOWN_BUGS: readonly KnownBug[] = [];

export function knownBug(scenario: string, side: Side, encoder: ProtocolId): KnownBug | undefined {
  return KNOWN_BUGS.find((b) => b.scenario === scenario && b.side === side && b.encoder === encoder);
}

// ---------------------------------------------------------------------------------------------
// Applying the rules
// ---------------------------------------------------------------------------------------------

export function normalisationsFor<T>(side: Side): readonly Normalisation<T>[] {
  return (side === 'request' ? REQUEST_NORMALISATIONS : RESPONSE_NORMALISATIONS) as unknown as readonly Normalisation<T>[];
}

/** The rules of `protocol` that change this scenario's IR, in list order. */
export function applicable<T>(side: Side, protocol: ProtocolId, ir: T): Normalisation<T>[] {
  return normalisationsFor<T>(side).filter((n) => n.protocols.includes(protocol) && !isDeepStrictEqual(n.decoded(ir, protocol), ir));
}

/** The scenario's IR as `protocol` decodes it. */
export function expectedDecode<T>(side: Side, protocol: ProtocolId, ir: T): T {
  return applicable(side, protocol, ir).reduce((acc, n) => n.decoded(acc, protocol), ir);
}

/** Target's wire file as it must come out of encoding what `source` decoded. */
export function expectedCrossWire<T>(side: Side, source: ProtocolId, target: ProtocolId, ir: T, wire: Json): Json {
  return applicable(side, source, ir).reduce((acc, n) => n.onWire?.[target]?.(acc, ir) ?? acc, wire);
}

export function expectedCrossWarnings<T>(side: Side, source: ProtocolId, target: ProtocolId, ir: T): string[] {
  return applicable(side, source, ir).flatMap((n) => n.warnings?.[target]?.(ir) ?? []);
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

function withEach(wire: Json, path: readonly string[], change: (item: Json) => Json): Json {
  const [head, ...rest] = path;
  if (head === undefined) return wire;
  const value = wire[head];
  if (rest.length > 0) return { ...wire, [head]: withEach(value as Json, rest, change) };
  return { ...wire, [head]: (value as Json[]).map(change) };
}

function mapImages(message: Message, change: (block: Extract<ContentBlock, { type: 'image' }>) => ContentBlock): Message {
  return { ...message, content: message.content.map((b) => (b.type === 'image' ? change(b) : b)) };
}

/** IR paths of every image block, as encoders name them in warnings. */
function imagePaths(ir: ChatRequest): string[] {
  return ir.messages.flatMap((m, i) => m.content.flatMap((b, j) => (b.type === 'image' ? [`messages[${i}].content[${j}]`] : [])));
}

/** OpenAI Chat and Cohere share the image_url part: detail "auto" on each. */
function withImageUrlDetail(wire: Json): Json {
  return withEach(wire, ['messages'], (message) => {
    const content = message.content;
    if (!Array.isArray(content)) return message;
    return {
      ...message,
      content: content.map((part: Json) => (part.type === 'image_url' ? { ...part, image_url: { ...(part.image_url as Json), detail: 'auto' } } : part)),
    };
  });
}
