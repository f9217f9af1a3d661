// A zero-delay upstream for benchmarks, run as its own process so its CPU is not the gateway's.
// Answers OpenAI Chat Completions and Anthropic Messages with precomputed real wire bodies.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { anthropicMessage, anthropicStreamEvents } from '../server/demo/anthropic-replies.ts';
import { openaiChatCompletion, openaiChatStreamEvents } from '../server/demo/openai-replies.ts';

const TEXT = 'The quick brown fox jumps over the lazy dog. '.repeat(4).trim();
const USAGE_OPENAI = { prompt_tokens: 42, completion_tokens: 40 };
const USAGE_ANTHROPIC = { input_tokens: 42, output_tokens: 40 };
const replies = {
  openai: JSON.stringify(openaiChatCompletion({ id: 'chatcmpl-bench', model: 'bench-model', text: TEXT, usage: USAGE_OPENAI })),
  openaiStream: openaiChatStreamEvents({ id: 'chatcmpl-bench', model: 'bench-model', text: TEXT, usage: USAGE_OPENAI }, { includeUsage: true, textPieces: 20 }).join(''),
  anthropic: JSON.stringify(anthropicMessage({ id: 'msg_bench', model: 'bench-model', text: TEXT, usage: USAGE_ANTHROPIC })),
  anthropicStream: anthropicStreamEvents({ id: 'msg_bench', model: 'bench-model', text: TEXT, usage: USAGE_ANTHROPIC }, { textPieces: 20 }).join(''),
};

const server = createServer({ keepAlive: true }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const stream = Buffer.concat(chunks).includes('"stream":true');
    const anthropic = req.url?.endsWith('/messages') === true;
    const body = anthropic ? (stream ? replies.anthropicStream : replies.anthropic) : (stream ? replies.openaiStream : replies.openai);
    res.writeHead(200, { 'content-type': stream ? 'text/event-stream' : 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.listen(0, '127.0.0.1', () => {
  console.log(JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
});
