import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Gateway } from '../gateway/gateway-context.ts';
import { embeddingsOperation } from '../operations/embeddings/embeddings-operation.ts';
import { handleOperation } from '../operations/handle-operation.ts';
import { jsonMediaOperation, type JsonMediaRoute } from '../operations/media/json-media-operation.ts';
import { IMAGE_GENERATIONS, MODERATIONS, SPEECH } from '../operations/media/openai-media-routes.ts';
import { audioUpload, imageUpload } from '../operations/media/openai-upload-routes.ts';
import { multipartOperation, type MultipartRoute } from '../operations/multipart/multipart-operation.ts';
import { rerankOperation } from '../operations/rerank/rerank-operation.ts';
import type { OperationDeclaration } from '../operations/operation.ts';
import type { OperationCall } from './operation-handlers.ts';
import { newExchange } from './serve-chat.ts';

/** One request of an operation other than chat (embeddings, ...), handed to the generic pipeline. */
export async function serveOperation(
  gateway: Gateway,
  req: IncomingMessage,
  res: ServerResponse,
  call: OperationCall,
  declaration: OperationDeclaration,
): Promise<void> {
  await handleOperation(newExchange(gateway, req, res, call), declaration);
}

/** Embeddings, in whichever protocol the route belongs to (operations/embeddings/). */
export function serveEmbeddings(gateway: Gateway, req: IncomingMessage, res: ServerResponse, call: OperationCall): Promise<void> {
  return serveOperation(
    gateway,
    req,
    res,
    call,
    embeddingsOperation(call.protocol, {
      ...(call.origin.pathModel !== undefined && { pathModel: call.origin.pathModel }),
      ...(call.origin.variant !== undefined && { shape: call.origin.variant }),
    }),
  );
}

const JSON_MEDIA: Readonly<Record<string, JsonMediaRoute>> = { moderations: MODERATIONS, generations: IMAGE_GENERATIONS, speech: SPEECH };
const UPLOADS: Readonly<Record<string, MultipartRoute>> = {
  edits: imageUpload('edits'),
  variations: imageUpload('variations'),
  transcriptions: audioUpload('transcriptions'),
  translations: audioUpload('translations'),
};

/** Moderations, images and audio, served within their protocol (operations/media/); the route's variant says which. */
export function serveMedia(gateway: Gateway, req: IncomingMessage, res: ServerResponse, call: OperationCall): Promise<void> {
  const variant = call.origin.variant ?? '';
  const json = JSON_MEDIA[variant];
  if (json !== undefined) return serveOperation(gateway, req, res, call, jsonMediaOperation(call.protocol, json));
  const upload = UPLOADS[variant];
  if (upload === undefined) throw new Error(`no media route variant "${variant}"`);
  return serveOperation(gateway, req, res, call, multipartOperation(call.protocol, upload));
}

/** Rerank in Cohere's shape, `/v2/rerank` or `/v1/rerank` (operations/rerank/). */
export function serveRerank(gateway: Gateway, req: IncomingMessage, res: ServerResponse, call: OperationCall): Promise<void> {
  return serveOperation(gateway, req, res, call, rerankOperation(call.protocol, call.origin.variant === 'v1' ? 'v1' : 'v2'));
}
