// Gemini fields the IR has no slot for are listed on the request with what a cross-protocol hop
// does: reject (400) where dropping would change the answer, warn where it would not.
import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../../server/ir/index.ts';
import { SCHEMAS, codec, schemaErrors } from './support.ts';

const contents = [{ role: 'user', parts: [{ text: 'Hi' }] }];
const ORIGIN = { pathModel: 'gemini-2.5-flash' };

function decoded(body: Record<string, unknown>): ChatRequest {
  expect(schemaErrors(SCHEMAS.request, body)).toEqual([]);
  return codec.decodeRequest(structuredClone(body), ORIGIN);
}
const unmappedOf = (body: Record<string, unknown>) => decoded(body).unmapped;

describe('Gemini unmapped fields', () => {
  it('rejects cachedContent, warns on safetySettings, labels and unknown fields, in body order', () => {
    const safetySettings = [{ category: 'HARM_CATEGORY_HATE_SPEECH', threshold: 'BLOCK_NONE' }];
    expect(unmappedOf({ contents, cachedContent: 'cachedContents/abc123', safetySettings, labels: { team: 'search' }, foo: 1 })).toEqual([
      {
        path: 'cachedContent',
        value: 'cachedContents/abc123',
        disposition: 'reject',
        reason: 'a Gemini context cache (server-side state the target cannot read)',
      },
      { path: 'safetySettings', value: safetySettings, disposition: 'warn', reason: 'Gemini safety filter thresholds' },
      { path: 'labels', value: { team: 'search' }, disposition: 'warn', reason: 'Vertex AI billing labels' },
      { path: 'foo', value: 1, disposition: 'warn', reason: 'unknown field' },
    ]);
  });

  it('names generationConfig members by their full path: candidateCount > 1 and logprobs rejected, sampling extras warned', () => {
    const thinkingConfig = { thinkingLevel: 'LUDICROUS' };
    expect(
      unmappedOf({
        contents,
        generationConfig: { candidateCount: 2, responseLogprobs: true, logprobs: 3, seed: 7, presencePenalty: 0.5, thinkingConfig, bar: true },
      }),
    ).toEqual([
      { path: 'generationConfig.candidateCount', value: 2, disposition: 'reject', reason: 'several candidates per request' },
      { path: 'generationConfig.responseLogprobs', value: true, disposition: 'reject', reason: 'token log probabilities' },
      { path: 'generationConfig.logprobs', value: 3, disposition: 'reject', reason: 'token log probabilities' },
      { path: 'generationConfig.presencePenalty', value: 0.5, disposition: 'warn', reason: 'sampling penalty' },
      { path: 'generationConfig.bar', value: true, disposition: 'warn', reason: 'unknown field' },
      { path: 'generationConfig.thinkingConfig.thinkingLevel', value: 'LUDICROUS', disposition: 'warn', reason: 'thinking level "LUDICROUS"' },
    ]);
  });

  it('says nothing about values that change nothing', () => {
    expect(
      unmappedOf({
        contents,
        safetySettings: [],
        generationConfig: { candidateCount: 1, responseLogprobs: false, presencePenalty: 0, frequencyPenalty: 0, responseModalities: ['TEXT'] },
      }),
    ).toEqual([]);
  });

  it('rejects non-text output and speech', () => {
    expect(
      unmappedOf({ contents, generationConfig: { responseModalities: ['TEXT', 'IMAGE'], speechConfig: { voiceConfig: {} } } }).map((u) => [
        u.path,
        u.disposition,
      ]),
    ).toEqual([
      ['generationConfig.responseModalities', 'reject'],
      ['generationConfig.speechConfig', 'reject'],
    ]);
  });

  it('maps every field it knows, so a full request has none', () => {
    expect(
      unmappedOf({
        contents,
        systemInstruction: { parts: [{ text: 'Be brief.' }] },
        tools: [{ functionDeclarations: [{ name: 'f', parametersJsonSchema: { type: 'object' } }] }],
        toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['f'] } },
        generationConfig: {
          maxOutputTokens: 5,
          temperature: 1,
          topP: 1,
          topK: 3,
          stopSequences: ['x'],
          responseMimeType: 'application/json',
          responseJsonSchema: { type: 'object' },
        },
      }),
    ).toEqual([]);
  });

  it('warns on media hints and on a signature on a media part, naming the part', () => {
    const body = {
      contents: [
        {
          role: 'user',
          parts: [
            {
              fileData: { fileUri: 'https://example.com/cat.png', mimeType: 'image/png' },
              mediaResolution: { level: 'MEDIA_RESOLUTION_HIGH' },
              thoughtSignature: 'c2ln',
            },
          ],
        },
      ],
    };
    expect(unmappedOf(body).map((u) => [u.path, u.disposition])).toEqual([
      ['contents[0].parts[0].mediaResolution', 'warn'],
      ['contents[0].parts[0].thoughtSignature', 'warn'],
    ]);
  });

  it('warns on function result schemas and non-blocking behavior', () => {
    const body = { contents, tools: [{ functionDeclarations: [{ name: 'f', responseJsonSchema: { type: 'string' }, behavior: 'NON_BLOCKING' }] }] };
    expect(unmappedOf(body).map((u) => u.path)).toEqual(['tools[0].functionDeclarations[0].responseJsonSchema', 'tools[0].functionDeclarations[0].behavior']);
  });
});

describe('function calling config', () => {
  const tools = [{ functionDeclarations: [{ name: 'get_weather' }, { name: 'get_time' }, { name: 'search' }] }];
  const withConfig = (functionCallingConfig: Record<string, unknown>) => decoded({ contents, tools, toolConfig: { functionCallingConfig } });

  it.each([
    [{ mode: 'AUTO' }, { type: 'auto' }],
    [{ mode: 'ANY' }, { type: 'required' }],
    [{ mode: 'NONE' }, { type: 'none' }],
    [
      { mode: 'ANY', allowedFunctionNames: ['get_time'] },
      { type: 'tool', name: 'get_time' },
    ],
    [{ mode: 'ANY', allowedFunctionNames: ['search', 'get_time', 'get_weather'] }, { type: 'required' }],
  ])('%j is tool choice %j', (config, choice) => {
    const request = withConfig(config);
    expect(request.toolChoice).toEqual(choice);
    expect(request.unmapped).toEqual([]);
  });

  it('VALIDATED reads as AUTO with a warning', () => {
    const request = withConfig({ mode: 'VALIDATED' });
    expect(request.toolChoice).toEqual({ type: 'auto' });
    expect(request.unmapped).toEqual([
      { path: 'toolConfig.functionCallingConfig.mode', value: 'VALIDATED', disposition: 'warn', reason: 'schema-validated function calling' },
    ]);
  });

  it('several allowed names that are not all the functions are rejected: the IR cannot restrict a choice to some tools', () => {
    const request = withConfig({ mode: 'ANY', allowedFunctionNames: ['get_weather', 'get_time'] });
    expect(request.toolChoice).toEqual({ type: 'required' });
    expect(request.unmapped).toEqual([
      {
        path: 'toolConfig.functionCallingConfig.allowedFunctionNames',
        value: ['get_weather', 'get_time'],
        disposition: 'reject',
        reason: 'a restriction to some of the declared functions',
      },
    ]);
  });

  it('an unknown mode is a 400 naming it', () => {
    expect(() => withConfig({ mode: 'SOMETIMES' })).toThrow(/toolConfig\.functionCallingConfig\.mode/);
  });
});
