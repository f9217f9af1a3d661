import { admit, authorize } from '../gateway/admission.ts';
import { answerFailure } from '../gateway/answer-failure.ts';
import { bodyMemoryOf } from '../gateway/body-memory.ts';
import { runWithFailover } from '../gateway/failover.ts';
import { passGates } from '../gateway/gate-check.ts';
import type { Exchange } from '../gateway/gateway-context.ts';
import { reportRequest } from '../gateway/report-request.ts';
import { readRequestBody } from '../gateway/request-body.ts';
import { requireLaneOperation, resolveModel, servingLanes } from '../gateway/resolve-model.ts';
import type { OperationDeclaration, PreparedOperation } from './operation.ts';

/**
 * One request of an operation other than chat, top to bottom: the chat pipeline's steps
 * (`gateway/handle-chat.ts`) with the operation's own reading, pricing and lane runs.
 */
export async function handleOperation(exchange: Exchange, declaration: OperationDeclaration): Promise<void> {
  exchange.gateway.inFlight.enter();
  exchange.meter.operation = declaration.operation;
  try {
    await answer(exchange, declaration);
  } finally {
    exchange.gateway.inFlight.leave();
    reportRequest(exchange);
  }
}

async function answer(exchange: Exchange, declaration: OperationDeclaration): Promise<void> {
  const { gateway } = exchange;
  const { operation } = declaration;
  const governance = gateway.config.governance ? gateway.governance : undefined;
  const hold = bodyMemoryOf(gateway.config).hold();
  let bodyRead = false;
  try {
    const key = governance === undefined ? undefined : await authorize(exchange, governance);
    const limit = gateway.config.limits.maxRequestBytes;
    let prepared: PreparedOperation;
    if (declaration.prepareUpload !== undefined) {
      // Streamed through: the body is read by the attempts, so an early answer closes the connection.
      prepared = await declaration.prepareUpload(exchange, limit, hold);
    } else {
      const body = await readRequestBody(exchange.req, limit, hold);
      bodyRead = true;
      prepared = declaration.prepare!(exchange, body);
    }
    const router = resolveModel(exchange, prepared.model, operation);
    const admitted =
      governance === undefined || key === undefined
        ? undefined
        : await admit(exchange, governance, key, router, prepared.pricing, servingLanes(router, operation));
    try {
      if (gateway.gates.length > 0) await passGates(exchange, gateway.gates, { router, keyId: admitted?.keyId, stream: false, body: prepared.gateBody });
      await runWithFailover(exchange, router, (lane) => {
        requireLaneOperation(lane, operation); // a pool may mix chat and embedding models
        return prepared.attempt(lane);
      });
    } finally {
      await admitted?.release();
    }
    // Without governance the record's cost is the answer's usage at the operation's price.
    const summary = exchange.res.answer;
    if (exchange.meter.costMicrocents === undefined && summary !== undefined && prepared.pricing.worstCase(summary.lane) !== undefined) {
      exchange.meter.costMicrocents = prepared.pricing.settle(summary).costMicrocents;
    }
  } catch (error) {
    answerFailure(exchange, error, bodyRead);
  } finally {
    hold.release();
  }
}
