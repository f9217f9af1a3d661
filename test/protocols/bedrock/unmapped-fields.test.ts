// Converse fields the IR has no slot for are listed on the request with what to do on a
// cross-protocol hop: reject (400) where dropping changes the answer, warn where it does not.
import { describe, expect, it } from 'vitest';
import { failureOf } from '../support/translate.ts';
import { decodeValid as decode } from './support/decode.ts';

const messages = [{ role: 'user', content: [{ text: 'Hi' }] }];

describe('Bedrock unmapped fields', () => {
  it('rejects guardrails and prompt variables, warns on metadata, paths and unknown fields, in body order', () => {
    const guardrail = { guardrailIdentifier: 'gr-123', guardrailVersion: '1' };
    expect(
      decode({
        messages,
        guardrailConfig: guardrail,
        requestMetadata: { a: 'b' },
        additionalModelResponseFieldPaths: ['/x'],
        promptVariables: { v: { text: 't' } },
        foo: 1,
      }).unmapped,
    ).toEqual([
      { path: 'guardrailConfig', value: guardrail, disposition: 'reject', reason: 'Bedrock guardrail' },
      { path: 'requestMetadata', value: { a: 'b' }, disposition: 'warn', reason: 'Bedrock invocation-log metadata' },
      { path: 'additionalModelResponseFieldPaths', value: ['/x'], disposition: 'warn', reason: 'extra model-specific response fields' },
      { path: 'promptVariables', value: { v: { text: 't' } }, disposition: 'reject', reason: 'Bedrock prompt-management variables' },
      { path: 'foo', value: 1, disposition: 'warn', reason: 'unknown field' },
    ]);
  });

  it('says nothing about settings that change nothing', () => {
    expect(
      decode({
        messages,
        performanceConfig: { latency: 'standard' },
        serviceTier: { type: 'default' },
        additionalModelRequestFields: { thinking: { type: 'disabled' } },
      }).unmapped,
    ).toEqual([]);
    expect(decode({ messages, performanceConfig: { latency: 'optimized' }, serviceTier: { type: 'flex' } }).unmapped.map((u) => u.path)).toEqual([
      'performanceConfig',
      'serviceTier',
    ]);
  });

  it('maps Claude and Nova top-k and reports every other model-specific field on its own path', () => {
    expect(decode({ messages, additionalModelRequestFields: { top_k: 40 } })).toMatchObject({ topK: 40, unmapped: [] });
    const nova = decode({
      messages,
      additionalModelRequestFields: { inferenceConfig: { topK: 20, repetitionPenalty: 1.1 }, anthropic_beta: ['context-1m-2025-08-07'] },
    });
    expect(nova.topK).toBe(20);
    expect(nova.unmapped).toEqual([
      { path: 'additionalModelRequestFields.inferenceConfig.repetitionPenalty', value: 1.1, disposition: 'warn', reason: 'model-specific inference setting' },
      { path: 'additionalModelRequestFields.anthropic_beta', value: ['context-1m-2025-08-07'], disposition: 'warn', reason: 'model-specific request field' },
    ]);
  });

  it('maps a JSON-schema output format and warns on what the IR cannot hold', () => {
    const request = decode({
      messages,
      outputConfig: {
        effort: 'low',
        textFormat: { type: 'json_schema', structure: { jsonSchema: { schema: '{"type":"object"}', name: 'answer', description: 'The answer' } } },
      },
    });
    expect(request.responseFormat).toEqual({ type: 'json_schema', schema: { type: 'object' }, name: 'answer' });
    expect(request.unmapped.map((u) => u.path)).toEqual(['outputConfig.effort', 'outputConfig.textFormat.structure.jsonSchema.description']);
    expect(
      failureOf(() => decode({ messages, outputConfig: { textFormat: { type: 'json_schema', structure: { jsonSchema: { schema: '{not json' } } } } })),
    ).toMatchObject({ status: 400, param: 'outputConfig.textFormat.structure.jsonSchema.schema' });
  });

  it('warns on cache points it cannot attach and on guardrail markings, naming their paths', () => {
    const request = decode({
      system: [{ cachePoint: { type: 'default' } }, { guardContent: { text: { text: 'Be nice.' } } }],
      messages: [
        {
          role: 'user',
          content: [
            { image: { format: 'png', source: { bytes: 'iVBORw0KGgo=' } } },
            { cachePoint: { type: 'default' } },
            { text: 'Hi' },
            { cachePoint: { type: 'default' } },
            { cachePoint: { type: 'default' } },
          ],
        },
      ],
      toolConfig: { tools: [{ cachePoint: { type: 'default' } }, { toolSpec: { name: 'f', inputSchema: { json: { type: 'object' } } } }] },
    });
    expect(request.unmapped.map((u) => `${u.path} ${u.disposition} ${u.reason}`)).toEqual([
      'system[0].cachePoint warn prompt cache point',
      'system[1].guardContent warn guardrail marking of this text',
      'messages[0].content[1].cachePoint warn prompt cache point',
      'messages[0].content[4].cachePoint warn prompt cache point',
      'toolConfig.tools[0].cachePoint warn prompt cache point',
    ]);
    expect(request.messages[0]).toEqual({ role: 'system', content: [{ type: 'text', text: 'Be nice.' }] });
    expect(request.messages[1]?.content[1]).toEqual({ type: 'text', text: 'Hi', cacheControl: { type: 'ephemeral' } });
  });
});
