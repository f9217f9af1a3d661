import type { RuntimeConfig, TlsMaterial } from '../config/runtime-config.ts';
import { stableJson } from '../config/restart-settings.ts';
import { carryBodyMemory } from '../gateway/body-memory.ts';
import type { Gateway } from '../gateway/gateway-context.ts';
import type { OwnerGovernance } from '../governance/governance.ts';
import { RoutingTable } from '../gateway/routing-table.ts';
import type { RoutingMemory } from '../routing/routing-memory.ts';
import type { Clock } from '../shared/clock.ts';
import { cpuMsSince, type ConfigControlDeps } from './config-control.ts';
import type { WorkerPool } from './worker-pool.ts';

type Certificates = { readonly tls: TlsMaterial | undefined; readonly adminTls: TlsMaterial | undefined };

export interface ConfigSwitchDeps {
  readonly live: { current: Gateway };
  readonly routingMemory: RoutingMemory;
  readonly clock: Clock;
  /** The other data-plane workers (absent with one worker, or before they start). */
  workers(): WorkerPool | undefined;
  /** The certificates each plane serves now. */
  served(): Certificates;
  renewTls(next: Certificates): string[];
  /** The governance store's owner, told the teams' budgets of each configuration switched to; absent without a store. */
  readonly governance?: Pick<OwnerGovernance, 'setTeams'>;
}

/**
 * How a configuration change reaches every thread (ConfigControlDeps.switchTo): the routing blocks
 * it needs are shared, each worker prepares its gateway and says whether it can, then all switch in
 * one tick (the workers on their commit message, the main thread at once), or none does.
 */
export function configSwitch(deps: ConfigSwitchDeps): ConfigControlDeps['switchTo'] {
  const { live, routingMemory, clock } = deps;
  return async (next: RuntimeConfig) => {
    let cpu = process.threadCpuUsage();
    const blocks = routingMemory.share(RoutingTable.needs(next));
    const routing = new RoutingTable(next, clock, { blocks, worker: 1, previous: live.current.routing });
    const preparing = deps.workers()?.prepareConfig(next, blocks);
    const cpuBefore = cpuMsSince(cpu);
    const prepared = await preparing;
    cpu = process.threadCpuUsage();
    if (prepared !== undefined && prepared.problems.length > 0) {
      prepared.abort();
      return { problems: prepared.problems, cpuMs: cpuBefore + cpuMsSince(cpu), workerCpuMs: prepared.cpuMs };
    }
    // Every thread switches in this tick: the workers on their commit message, this one now.
    prepared?.commit();
    routingMemory.adopt(blocks);
    carryBodyMemory(live.current.config, next);
    live.current = { ...live.current, config: next, routing };
    // Team budgets change live: the next admission holds keys to the new ones.
    deps.governance?.setTeams(next.teamBudgets);
    const served = deps.served();
    if (stableJson(next.tls) !== stableJson(served.tls) || stableJson(next.adminTls) !== stableJson(served.adminTls))
      deps.renewTls({ tls: next.tls, adminTls: next.adminTls });
    return { problems: [], cpuMs: cpuBefore + cpuMsSince(cpu), workerCpuMs: prepared?.cpuMs ?? 0 };
  };
}
