// gateway-admin teams list: the configured teams (and teams named only on keys) with their
// budgets, spend and what is left.
import type { Command } from 'commander';
import { getApiV1AdminTeams } from '../../clients-ts/src/index.ts';
import { withConnection } from '../connection.ts';
import { call } from '../errors.ts';
import { dollars, print, printJson, table } from '../output.ts';

export function registerTeams(program: Command): void {
  const teams = program.command('teams').description("teams: their budgets and their keys' spend");
  teams
    .command('list')
    .description('list every configured team, then teams named only on keys, with budget, spend, in-flight holds and what is left')
    .action((_options: unknown, command: Command) =>
      withConnection(command, async (connection) => {
        const list = await call(connection, getApiV1AdminTeams({ client: connection.client }));
        if (connection.json) return printJson(list);
        if (list.data.length === 0) return print('no teams (configure them under teams: in config.yaml)');
        print(
          table(
            ['team', 'budget', 'period', 'spent', 'lifetime', 'in flight', 'remaining', 'keys', 'configured'],
            list.data.map((t) => [
              t.name,
              dollars(t.budget_usd),
              t.budget_period ?? (t.budget_cents === null ? '-' : 'lifetime'),
              dollars(t.spent_usd),
              dollars(t.lifetime_spent_usd),
              dollars(t.reserved_usd),
              dollars(t.remaining_usd),
              String(t.keys),
              t.configured ? 'yes' : 'no (named on keys only)',
            ]),
          ),
        );
      }),
    );
}
