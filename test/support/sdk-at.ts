// The official SDKs pointed at a gateway (or a proxy in front of it) by base URL only, with a dummy
// key and no retries, so a test sees each answer exactly once.
import Anthropic from '@anthropic-ai/sdk';
import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import { GoogleGenAI } from '@google/genai';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { CohereClientV2 } from 'cohere-ai';
import OpenAI from 'openai';

export const openaiAt = (url: string) => new OpenAI({ apiKey: 'k', baseURL: `${url}/v1`, maxRetries: 0 });
export const anthropicAt = (url: string) => new Anthropic({ apiKey: 'k', baseURL: url, maxRetries: 0 });
export const geminiAt = (url: string) => new GoogleGenAI({ apiKey: 'k', httpOptions: { baseUrl: url } });
export const cohereAt = (url: string) => new CohereClientV2({ token: 'k', environment: url });
export const bedrockAt = (url: string) =>
  new BedrockRuntimeClient({
    region: 'us-east-1',
    endpoint: url,
    credentials: { accessKeyId: 'k', secretAccessKey: 'k' },
    requestHandler: new NodeHttpHandler(),
    maxAttempts: 1,
  });
