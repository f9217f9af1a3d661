import type { components } from '../../generated/admin-api.ts';
import type { HookStatus } from '../hooks/hooks.ts';

type HookView = components['schemas']['HookView'];

/** GET /api/v1/admin/hooks: each hook's kind, masked target, events and counters (never a credential). */
export function hookView(hook: HookStatus): HookView {
  return {
    name: hook.name,
    kind: hook.kind,
    target: hook.target,
    events: [...hook.events],
    timeout_ms: hook.timeoutMs,
    ...(hook.onError !== undefined && { on_error: hook.onError }),
    ...(hook.gate !== undefined && { gate: { ...hook.gate } }),
    ...(hook.delivery !== undefined && {
      delivery: {
        queued: hook.delivery.queued,
        in_flight: hook.delivery.inFlight,
        delivered: hook.delivery.delivered,
        failed: hook.delivery.failed,
        retries: hook.delivery.retries,
        dropped: hook.delivery.dropped,
      },
    }),
  };
}
