// The Python openai SDK's transcription (httpx writes the form fields before the file) and speech
// (streamed to a file) through the gateway, with the real SDK in the test venv.
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/gateway-harness.ts';
import { multipartField, SPEECH_CHUNK_BYTES, SPEECH_CHUNKS, TRANSCRIPT_SECONDS } from '../support/media-replies.ts';
import { pythonSdk, runPython, type PythonSdk } from '../support/python-sdk.ts';
import { toneWav } from '../support/wav-file.ts';

const SCRIPT = `
import json, os, openai
client = openai.OpenAI(base_url=os.environ["BASE_URL"], api_key="client-key", max_retries=0)
with open(os.environ["WAV"], "rb") as f:
    answer = client.audio.transcriptions.create(model="whisper", file=f, response_format="verbose_json")
size = 0
with client.audio.speech.with_streaming_response.create(model="speech", voice="alloy", input="hello there") as response:
    for chunk in response.iter_bytes():
        size += len(chunk)
print(json.dumps({"duration": answer.duration, "text": answer.text, "speech_bytes": size}))
`;

const sdk: PythonSdk = pythonSdk();
const skip = 'skip' in sdk ? sdk.skip : undefined;
if (skip !== undefined) console.warn(`audio-python: skipped: ${skip}`);

let h: Harness;
beforeAll(async () => {
  if (skip !== undefined) return;
  h = await startHarness({
    extraModelsYaml: '  whisper: { provider: openai, model: whisper-1 }\n  speech: { provider: openai, model: tts-1 }\n',
  });
});
afterAll(() => h?.close());

describe.skipIf(skip !== undefined)('Python openai SDK audio', () => {
  it('transcription of a WAV (fields before the file) and speech streamed to the end', async () => {
    const wav = join(mkdtempSync(join(tmpdir(), 'audio-python-')), 'speech.wav');
    const bytes = toneWav(5);
    writeFileSync(wav, bytes);
    const python = (sdk as { python: string }).python;
    const out = JSON.parse(await runPython(python, SCRIPT, { BASE_URL: `${h.url}/v1`, WAV: wav })) as { duration: number; text: string; speech_bytes: number };
    expect(out.duration).toBe(TRANSCRIPT_SECONDS);
    expect(out.text).toMatch(/whisper-1/);
    expect(out.speech_bytes).toBe(SPEECH_CHUNKS * SPEECH_CHUNK_BYTES);
    const upload = h.upstream.requests.find((r) => r.path === '/v1/audio/transcriptions')!;
    expect(multipartField(upload, 'model')).toBe('whisper-1');
    expect(upload.rawBody.includes(bytes)).toBe(true);
    // httpx puts the fields first: the gateway had the model before any of the file.
    expect(upload.rawBody.indexOf('name="model"')).toBeLessThan(upload.rawBody.indexOf('name="file"'));
  });
});
