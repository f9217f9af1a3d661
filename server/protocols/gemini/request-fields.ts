import type { FieldRule } from '../shared/unmapped-fields.ts';

/** Top-level generateContent fields the IR maps (`model` only when no path names one). */
export const MAPPED_FIELDS: ReadonlySet<string> = new Set(['model', 'contents', 'systemInstruction', 'tools', 'toolConfig', 'generationConfig']);

/** Top-level fields with no IR slot, and what happens to them on a cross-protocol hop. */
export const FIELD_RULES: Readonly<Record<string, FieldRule>> = {
  safetySettings: { disposition: 'warn', reason: 'Gemini safety filter thresholds', isNeutral: (v) => Array.isArray(v) && v.length === 0 },
  cachedContent: { disposition: 'reject', reason: 'a Gemini context cache (server-side state the target cannot read)' },
  labels: { disposition: 'warn', reason: 'Vertex AI billing labels' },
  serviceTier: { disposition: 'warn', reason: 'Gemini service tier' },
};

/** generationConfig members the IR maps. */
export const MAPPED_GENERATION_FIELDS: ReadonlySet<string> = new Set([
  'maxOutputTokens',
  'temperature',
  'topP',
  'topK',
  'seed',
  'stopSequences',
  'responseMimeType',
  'responseSchema',
  'responseJsonSchema',
  'thinkingConfig',
]);

const isZero = (v: unknown) => v === 0;
const isFalse = (v: unknown) => v === false;

/** generationConfig members with no IR slot (paths are reported as `generationConfig.<name>`). */
export const GENERATION_FIELD_RULES: Readonly<Record<string, FieldRule>> = {
  candidateCount: { disposition: 'reject', reason: 'several candidates per request', isNeutral: (v) => v === 1 },
  responseLogprobs: { disposition: 'reject', reason: 'token log probabilities', isNeutral: isFalse },
  logprobs: { disposition: 'reject', reason: 'token log probabilities', isNeutral: isZero },
  responseModalities: {
    disposition: 'reject',
    reason: 'non-text output',
    isNeutral: (v) => Array.isArray(v) && v.every((m) => typeof m === 'string' && m.toUpperCase() === 'TEXT'),
  },
  speechConfig: { disposition: 'reject', reason: 'speech output' },
  imageConfig: { disposition: 'reject', reason: 'image output settings' },
  presencePenalty: { disposition: 'warn', reason: 'sampling penalty', isNeutral: isZero },
  frequencyPenalty: { disposition: 'warn', reason: 'sampling penalty', isNeutral: isZero },
  mediaResolution: { disposition: 'warn', reason: 'media resolution' },
  audioTimestamp: { disposition: 'warn', reason: 'audio timestamps', isNeutral: isFalse },
  enableEnhancedCivicAnswers: { disposition: 'warn', reason: 'Gemini civic answers setting' },
  routingConfig: { disposition: 'warn', reason: 'Vertex AI model routing' },
  modelSelectionConfig: { disposition: 'warn', reason: 'Vertex AI model selection' },
};
