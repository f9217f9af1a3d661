import type { ModelRoute } from '../config/runtime-config.ts';
import { GatewayFailure, gatewayError } from '../ir/index.ts';
import type { PoolRouter } from '../routing/pool-router.ts';
import { GATE_CONTRACT_VERSION, type GateQuestion } from '../hooks/gate-contract.ts';
import type { GateHook } from '../hooks/gate-hook.ts';
import { GATE_EVENT } from '../hooks/hook-settings.ts';
import type { Exchange } from './gateway-context.ts';

export interface GateSubject {
  readonly router: PoolRouter<ModelRoute>;
  readonly keyId: string | undefined;
  readonly stream: boolean;
  /** The client's request body as parsed, sent only to gates with include_content. */
  readonly body: unknown;
}

/**
 * Asks every gate hook, in parallel, whether the request may go upstream; every one must allow.
 * A denial (or a gate that failed closed) is a 403 in the client's protocol, the first in config
 * order naming the gate; nothing has gone upstream then, and the caller releases the admission.
 */
export async function passGates(exchange: Exchange, gates: readonly GateHook[], subject: GateSubject): Promise<void> {
  const base = gateQuestion(exchange, subject);
  const verdicts = await Promise.all(
    gates.map((gate) =>
      gate.ask(
        {
          ...base,
          hook: gate.settings.name,
          ...(gate.settings.includeContent && { request: subject.body }),
        },
        exchange.signal,
      ),
    ),
  );
  verdicts.forEach((verdict, i) => {
    if (verdict.allow) return;
    const name = gates[i]!.settings.name;
    if (verdict.error !== undefined) {
      throw new GatewayFailure(
        gatewayError('permission', `the gate hook "${name}" could not decide (${verdict.error}), and it denies when it cannot`, { code: 'hook_unavailable' }),
      );
    }
    exchange.log.info({ hook: name, reason: verdict.reason }, 'denied by a gate hook');
    throw new GatewayFailure(
      gatewayError('permission', `request denied by the gate hook "${name}"${verdict.reason === undefined ? '' : `: ${verdict.reason}`}`, {
        code: 'denied_by_hook',
      }),
    );
  });
}

function gateQuestion(exchange: Exchange, subject: GateSubject): Omit<GateQuestion, 'hook'> {
  const { router } = subject;
  return {
    version: GATE_CONTRACT_VERSION,
    event: GATE_EVENT,
    request_id: exchange.requestId,
    key_id: subject.keyId ?? null,
    model: router.name,
    pool: exchange.gateway.config.pools.has(router.name) ? router.name : null,
    lanes: router.members.map((m) => ({
      model: m.lane.name,
      provider: m.lane.provider.name,
      protocol: m.lane.provider.protocol,
      upstream_model: m.lane.upstreamModel,
    })),
    ingress: exchange.ingress.codec.id,
    stream: subject.stream,
    client_ip: exchange.req.socket.remoteAddress ?? null,
  };
}
