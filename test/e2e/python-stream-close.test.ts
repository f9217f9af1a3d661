// openai-python reads a stream to `[DONE]` and then closes the response at once, before the
// gateway has seen the upstream's end of body. That client has its whole answer: the request
// record, /stats and the webhook event must say success, not `client_gone`. The real Python SDK
// is the client (installed into a venv under the temp dir by test/support/python-sdk.ts).
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { anthropicStreamEvents } from '../../server/demo/anthropic-replies.ts';
import { openaiChatStreamEvents } from '../../server/demo/openai-replies.ts';
import { startHarness, type Harness } from '../support/gateway-harness.ts';
import { answerJson, startHookReceiver, type HookReceiver } from '../support/hook-receiver.ts';
import { pythonSdk, runPython, type PythonSdk } from '../support/python-sdk.ts';
import { RecordCollector } from '../support/record-collector.ts';

/** The upstream's end of body trails its last event by this much: the SDK is gone by then. */
const LINGER_MS = 400;

const STREAM_AND_CLOSE = `
import json, os, openai
client = openai.OpenAI(base_url=os.environ["BASE_URL"], api_key="client-key", max_retries=0)
stream = client.chat.completions.create(model=os.environ["MODEL"], messages=[{"role": "user", "content": "hi"}], stream=True)
text = "".join(chunk.choices[0].delta.content or "" for chunk in stream if chunk.choices)
print(json.dumps({"text": text, "request_id": stream.response.headers.get("x-request-id")}))
`;

const sdk: PythonSdk = pythonSdk();
const skip = 'skip' in sdk ? sdk.skip : undefined;
if (skip !== undefined) console.warn(`python-stream-close: skipped: ${skip}`);

let h: Harness;
let receiver: HookReceiver;
const records = new RecordCollector();

beforeAll(async () => {
  if (skip !== undefined) return;
  receiver = await startHookReceiver((_, res) => answerJson(res, 200, {}));
  h = await startHarness({ observers: [records], extraYaml: `hooks:\n  - { name: audit, kind: webhook, url: "${receiver.url}/events" }\n` });
});
afterAll(async () => {
  await h?.close();
  await receiver?.close();
});
beforeEach(() => {
  if (skip !== undefined) return;
  h.upstream.reset();
  receiver.reset();
  records.clear();
});

interface Stats {
  requests: { total: number; completed: number; failed: number; client_gone: number };
}
const stats = async () => ((await (await fetch(`${h.adminUrl}/stats`)).json()) as Stats).requests;

describe.skipIf(skip !== undefined)('openai-python closing right after the end marker', () => {
  it.each([
    [
      'same protocol (OpenAI lane)',
      'gpt',
      () => openaiChatStreamEvents({ id: 'chatcmpl-py', model: 'gpt-4.1-mini', text: 'whole answer' }, { includeUsage: true, textPieces: 3 }),
    ],
    [
      'translated (Anthropic lane)',
      'claude',
      () =>
        anthropicStreamEvents(
          { id: 'msg_py', model: 'claude-sonnet-4-5', text: 'whole answer', usage: { input_tokens: 9, output_tokens: 4 } },
          { textPieces: 3 },
        ),
    ],
  ])('%s: recorded as a success, in the record, /stats and the webhook event', async (_, model, events) => {
    const before = await stats();
    h.upstream.enqueue({ events: events(), lingerMs: LINGER_MS });
    const out = JSON.parse(await runPython((sdk as { python: string }).python, STREAM_AND_CLOSE, { BASE_URL: `${h.url}/v1`, MODEL: model })) as {
      text: string;
      request_id: string;
    };
    expect(out.text).toBe('whole answer');

    const record = await records.forRequest(out.request_id, 5000);
    // The SDK really did close before the upstream ended its body (else this test proves nothing).
    await vi.waitFor(() => expect(h.upstream.requests[0]?.abandoned).toBe(true), { timeout: 2000 });
    expect(record).toMatchObject({ status: 200, clientGone: false });
    expect(record.errorKind).toBeUndefined();
    expect(record.attempts.map((a) => a.outcome)).toEqual(['success']);
    expect(record.usage).not.toBeNull();

    const after = await stats();
    expect(after.completed - before.completed).toBe(1);
    expect(after.client_gone - before.client_gone).toBe(0);
    expect(after.failed - before.failed).toBe(0);

    const [call] = await receiver.waitForCalls(1, 5000);
    const event = call!.json as { type: string; request: { id: string; status: number; client_gone: boolean } };
    expect(event).toMatchObject({ type: 'request.completed', request: { id: out.request_id, status: 200, client_gone: false } });
  });

  it('a client that leaves before the end marker is still client_gone', async () => {
    const events = openaiChatStreamEvents({ id: 'chatcmpl-py', model: 'gpt-4.1-mini', text: 'abcdef' }, { includeUsage: false, textPieces: 3 });
    h.upstream.enqueue({ events, pauseAfter: 2, pauseMs: 2000 });
    const script = `
import os, openai
client = openai.OpenAI(base_url=os.environ["BASE_URL"], api_key="client-key", max_retries=0)
stream = client.chat.completions.create(model="gpt", messages=[{"role": "user", "content": "hi"}], stream=True)
for chunk in stream:
    if chunk.choices and chunk.choices[0].delta.content:
        print(stream.response.headers.get("x-request-id"))
        stream.close()
        break
`;
    const requestId = (await runPython((sdk as { python: string }).python, script, { BASE_URL: `${h.url}/v1` })).trim();
    const record = await records.forRequest(requestId, 5000);
    expect(record.clientGone).toBe(true);
    expect(record.attempts.map((a) => a.outcome)).toEqual(['client_gone']);
  });
});
