// What the real providers answer on their media and rerank endpoints, for the mock upstream: the
// wire shapes of OpenAI's moderations, images (url and b64_json), speech (audio bytes, streamed in
// chunks), transcriptions (json with usage, verbose_json with duration, text) and Cohere's rerank,
// as the public API references and SDK fixtures show them (test/fixtures/real/SOURCES.md).
import type { RecordedRequest, ScriptedReply } from './mock-upstream.ts';

/** A 1×1 transparent PNG, the smallest real image an images answer can carry. */
export const TINY_PNG_B64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
/** The speech answer's audio: bytes that start like an MP3 frame, sent in SPEECH_CHUNKS pieces. */
export const SPEECH_CHUNKS = 4;
export const SPEECH_CHUNK_BYTES = 16 * 1024;
export const SPEECH_DELAY_MS = 150;
/** The duration a verbose_json transcription reports, and the tokens a json one reports. */
export const TRANSCRIPT_SECONDS = 8.47;
export const TRANSCRIPT_USAGE = {
  type: 'tokens',
  input_tokens: 14,
  input_token_details: { text_tokens: 0, audio_tokens: 14 },
  output_tokens: 45,
  total_tokens: 59,
};

export function speechChunk(index: number): Buffer {
  const chunk = Buffer.alloc(SPEECH_CHUNK_BYTES, index + 1);
  if (index === 0) Buffer.from([0x49, 0x44, 0x33, 0x04]).copy(chunk); // "ID3", as an MP3 file begins
  return chunk;
}

/** The mock's answer on a media or rerank path; undefined for any other path. */
export function mediaReply(request: RecordedRequest): ScriptedReply | undefined {
  const path = request.path.split('?', 1)[0] ?? '';
  const json = (request.json ?? {}) as Record<string, unknown>;
  if (path.endsWith('/v1/moderations')) return moderation(json);
  if (path.endsWith('/v1/images/generations') || path.endsWith('/v1/images/edits') || path.endsWith('/v1/images/variations')) {
    const n = typeof json.n === 'number' ? json.n : Number(multipartField(request, 'n') ?? 1);
    const format = (json.response_format as string | undefined) ?? multipartField(request, 'response_format') ?? 'url';
    return images(n, format);
  }
  if (path.endsWith('/v1/audio/speech')) {
    return {
      headers: { 'content-type': 'audio/mpeg', 'transfer-encoding': 'chunked' },
      events: Array.from({ length: SPEECH_CHUNKS }, (_, i) => speechChunk(i)),
      delayMs: SPEECH_DELAY_MS,
    };
  }
  if (path.endsWith('/v1/audio/transcriptions') || path.endsWith('/v1/audio/translations'))
    return transcription(request, path.endsWith('/translations') ? 'translate' : 'transcribe');
  if (path === '/v2/rerank' || path === '/v1/rerank') return rerank(json);
  return undefined;
}

function moderation(json: Record<string, unknown>): ScriptedReply {
  const inputs = Array.isArray(json.input) ? json.input : [json.input];
  const categories = [
    'harassment',
    'harassment/threatening',
    'hate',
    'hate/threatening',
    'illicit',
    'illicit/violent',
    'self-harm',
    'self-harm/intent',
    'self-harm/instructions',
    'sexual',
    'sexual/minors',
    'violence',
    'violence/graphic',
  ];
  const results = inputs.map((input) => {
    const flagged = typeof input === 'string' && input.includes('kill');
    return {
      flagged,
      categories: Object.fromEntries(categories.map((c) => [c, flagged && c === 'violence'])),
      category_scores: Object.fromEntries(categories.map((c) => [c, flagged && c === 'violence' ? 0.86 : 0.0001])),
      category_applied_input_types: Object.fromEntries(categories.map((c) => [c, ['text']])),
    };
  });
  return { json: { id: 'modr-0d9740456c391e43c445bf0f010940c7', model: json.model, results } };
}

function images(n: number, format: string): ScriptedReply {
  const data = Array.from({ length: n }, (_, i) =>
    format === 'b64_json'
      ? { b64_json: TINY_PNG_B64 }
      : { url: `https://oaidalleapiprodscus.blob.core.windows.net/private/org-x/img-${i}.png`, revised_prompt: 'A cute baby sea otter' },
  );
  return { json: { created: 1713833628, data } };
}

function transcription(request: RecordedRequest, task: string): ScriptedReply {
  const format = multipartField(request, 'response_format') ?? 'json';
  const text = `Imagine the wildest idea that you've ever had (${multipartField(request, 'model') ?? '?'})`;
  if (format === 'text') return { headers: { 'content-type': 'text/plain; charset=utf-8' }, raw: `${text}\n` };
  if (format === 'verbose_json') {
    return {
      json: {
        task,
        language: 'english',
        duration: TRANSCRIPT_SECONDS,
        text,
        segments: [
          {
            id: 0,
            seek: 0,
            start: 0,
            end: 3.32,
            text,
            tokens: [50364, 440, 7534],
            temperature: 0,
            avg_logprob: -0.28,
            compression_ratio: 1.24,
            no_speech_prob: 0.009,
          },
        ],
        usage: { type: 'duration', seconds: 9 },
      },
    };
  }
  return { json: { text, usage: TRANSCRIPT_USAGE } };
}

function rerank(json: Record<string, unknown>): ScriptedReply {
  const documents = Array.isArray(json.documents) ? json.documents : [];
  const query = String(json.query ?? '');
  const scored = documents.map((d, index) => {
    const text = typeof d === 'string' ? d : String((d as { text?: unknown }).text ?? '');
    const overlap = text
      .toLowerCase()
      .split(/\W+/)
      .filter((w) => w !== '' && query.toLowerCase().includes(w)).length;
    return { index, relevance_score: Math.round((overlap / (overlap + 1)) * 1e6) / 1e6 };
  });
  scored.sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index);
  const top = typeof json.top_n === 'number' ? scored.slice(0, json.top_n) : scored;
  return {
    json: {
      results: top,
      id: '07734bd2-2473-4f07-94e1-0d9f0e6843cf',
      meta: { api_version: { version: '2', is_experimental: false }, billed_units: { search_units: Math.max(1, Math.ceil(documents.length / 100)) } },
    },
  };
}

/** A small text field of a multipart body as sent (the mock reads the raw bytes, as a server would). */
export function multipartField(request: RecordedRequest, name: string): string | undefined {
  const match = new RegExp(`name="${name}"\\r\\n(?:[^\\r\\n]+\\r\\n)*\\r\\n([^\\r]*)\\r\\n--`).exec(request.rawBody.toString('latin1'));
  return match?.[1];
}
