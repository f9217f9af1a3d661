import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Gateway } from '../gateway/gateway-context.ts';
import { handleOperation } from '../operations/handle-operation.ts';
import type { OperationDeclaration } from '../operations/operation.ts';
import { newExchange, type ServeCall } from './serve-chat.ts';

/** One request of an operation other than chat (embeddings, ...), handed to the generic pipeline. */
export async function serveOperation(gateway: Gateway, req: IncomingMessage, res: ServerResponse, call: ServeCall & { readonly declaration: OperationDeclaration }): Promise<void> {
  await handleOperation(newExchange(gateway, req, res, call), call.declaration);
}
