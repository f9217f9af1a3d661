import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Gateway } from '../gateway/gateway-context.ts';
import { embeddingsOperation } from '../operations/embeddings/embeddings-operation.ts';
import { handleOperation } from '../operations/handle-operation.ts';
import type { OperationDeclaration } from '../operations/operation.ts';
import type { OperationCall } from './operation-handlers.ts';
import { newExchange } from './serve-chat.ts';

/** One request of an operation other than chat (embeddings, ...), handed to the generic pipeline. */
export async function serveOperation(gateway: Gateway, req: IncomingMessage, res: ServerResponse, call: OperationCall, declaration: OperationDeclaration): Promise<void> {
  await handleOperation(newExchange(gateway, req, res, call), declaration);
}

/** Embeddings, in whichever protocol the route belongs to (operations/embeddings/). */
export function serveEmbeddings(gateway: Gateway, req: IncomingMessage, res: ServerResponse, call: OperationCall): Promise<void> {
  return serveOperation(gateway, req, res, call, embeddingsOperation(call.protocol, { ...(call.origin.pathModel !== undefined && { pathModel: call.origin.pathModel }), ...(call.origin.variant !== undefined && { shape: call.origin.variant }) }));
}
