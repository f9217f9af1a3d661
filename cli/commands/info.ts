// gateway-admin info: server version, uptime, build, config version and the topology.
import type { Command } from 'commander';
import { getApiV1AdminInfo, type InfoView } from '../../clients-ts/src/index.ts';
import { withConnection } from '../connection.ts';
import { call } from '../errors.ts';
import { duration, fields, print, printJson, table } from '../output.ts';

export function registerInfo(program: Command): void {
  program
    .command('info')
    .description('show the running gateway: version, uptime, build modules, config version, models and pools')
    .action((_options: unknown, command: Command) =>
      withConnection(command, async (connection) => {
        const info = await call(connection, getApiV1AdminInfo({ client: connection.client }));
        if (connection.json) printJson(info);
        else print(renderInfo(info));
      }),
    );
}

export function renderInfo(info: InfoView): string {
  const models = info.topology.models.map((m) => [m.name, m.provider, m.protocol, m.upstream_model]);
  const pools = info.topology.pools.map((p) => [p.name, p.members.map((m) => `${m.model} (weight ${m.weight})`).join(', ')]);
  return [
    fields([
      ['version', info.version],
      ['config version', info.config_version],
      ['uptime', duration(info.uptime_seconds)],
      ['node', info.build.node],
      ['modules', info.build.modules.join(', ')],
    ]),
    '',
    models.length === 0 ? 'models: none' : table(['model', 'provider', 'protocol', 'upstream model'], models),
    '',
    pools.length === 0 ? 'pools: none' : table(['pool', 'members'], pools),
  ].join('\n');
}
