// gateway-admin hooks list: the configured gate and webhook hooks with their counters.
import type { Command } from 'commander';
import { getApiV1AdminHooks, type HookView } from '../../clients-ts/src/index.ts';
import { withConnection } from '../connection.ts';
import { call } from '../errors.ts';
import { print, printJson, table } from '../output.ts';

export function registerHooks(program: Command): void {
  const hooks = program.command('hooks').description('gate and webhook hooks');
  hooks
    .command('list')
    .description('list the hooks in config order: kind, target (credentials masked), events and counters')
    .action((_options: unknown, command: Command) =>
      withConnection(command, async (connection) => {
        const list = await call(connection, getApiV1AdminHooks({ client: connection.client }));
        if (connection.json) return printJson(list);
        if (list.data.length === 0) return print('no hooks (configure them under hooks: in config.yaml)');
        print(
          table(
            ['name', 'kind', 'target', 'events', 'on error', 'counters'],
            list.data.map((h) => [h.name, h.kind, h.target, h.events.join(','), h.on_error ?? '', counters(h)]),
          ),
        );
      }),
    );
}

export function counters(hook: HookView): string {
  if (hook.gate !== undefined) {
    const g = hook.gate;
    return `calls ${g.calls}, allowed ${g.allowed}, denied ${g.denied}, errors ${g.errors}`;
  }
  if (hook.delivery !== undefined) {
    const d = hook.delivery;
    return `delivered ${d.delivered}, failed ${d.failed}, retries ${d.retries}, dropped ${d.dropped}, queued ${d.queued}, in flight ${d.in_flight}`;
  }
  return '';
}
