// gateway-admin keys create | list | show | revoke (and update, rotate, usage from their own
// files): virtual keys with budgets, periods, rate and token limits, model allow-lists, expiry,
// teams and labels.
import type { Command } from 'commander';
import { deleteApiV1AdminKeysById, getApiV1AdminKeys, getApiV1AdminKeysById, postApiV1AdminKeys } from '../../clients-ts/src/index.ts';
import { withConnection } from '../connection.ts';
import { call } from '../errors.ts';
import { addKeyFlags, keyBody, type KeyFlags } from '../key-flags.ts';
import { cents, orNone, print, printJson, table } from '../output.ts';
import { keyStatus, renderKey } from '../render-key.ts';
import { registerKeyChanges } from './key-changes.ts';
import { registerKeyUsage } from './usage.ts';

export function registerKeys(program: Command): void {
  const keys = program.command('keys').description('virtual keys: create, list, show, update, rotate, revoke, usage');

  // Every field is optional, as in the admin API: a key without limits is limited by nothing but revocation.
  addKeyFlags(keys.command('create').description('create a virtual key; its secret is printed once, now, and never again'), 'create')
    .addHelpText(
      'after',
      [
        '\nExamples:',
        '  gateway-admin keys create --budget-cents 5000 --rpm 60 --name ci-bot',
        '  gateway-admin keys create --budget-cents 2000 --budget-period monthly --team research --models gpt,claude',
        '  gateway-admin keys create --tpm 100000 --expires-in 30d --owner contractor --metadata ticket=OPS-42',
      ].join('\n'),
    )
    .action((flags: KeyFlags, command: Command) =>
      withConnection(command, async (connection) => {
        const body = keyBody(flags);
        const key = await call(connection, postApiV1AdminKeys({ client: connection.client, body }));
        if (connection.json) return printJson(key);
        print(`${renderKey(key, [['secret', key.secret]])}\n\nThe secret is shown this once: store it now.`);
      }),
    );

  keys
    .command('list')
    .description('list every virtual key, oldest first, with its limits and spend (never a secret)')
    .action((_options: unknown, command: Command) =>
      withConnection(command, async (connection) => {
        const list = await call(connection, getApiV1AdminKeys({ client: connection.client }));
        if (connection.json) return printJson(list);
        if (list.data.length === 0) return print('no keys');
        print(
          table(
            ['id', 'name', 'owner', 'prefix', 'budget', 'spent', 'remaining', 'rpm', 'tpm', 'team', 'expires', 'created', 'status'],
            list.data.map((k) => [
              k.id,
              k.name ?? '',
              k.owner ?? '',
              k.prefix,
              k.budget_cents === null ? 'none' : `${cents(k.budget_cents)}${k.budget_period === null ? '' : `/${k.budget_period}`}`,
              cents(k.spent_cents),
              cents(k.remaining_cents),
              orNone(k.rpm),
              orNone(k.tpm),
              k.team ?? '-',
              k.expires_at ?? 'never',
              k.created_at,
              keyStatus(k),
            ]),
          ),
        );
      }),
    );

  keys
    .command('show')
    .description('show one virtual key with its limits, spend and labels (never its secret)')
    .argument('<id>', "the key's id (key_...), as `keys list` shows it")
    .action((id: string, _options: unknown, command: Command) =>
      withConnection(command, async (connection) => {
        const key = await call(connection, getApiV1AdminKeysById({ client: connection.client, path: { id } }));
        if (connection.json) return printJson(key);
        print(renderKey(key));
      }),
    );

  registerKeyChanges(keys);

  keys
    .command('revoke')
    .description('revoke a virtual key: the next request with it is refused (revoking again is harmless)')
    .argument('<id>', "the key's id (key_...), as `keys list` shows it")
    .action((id: string, _options: unknown, command: Command) =>
      withConnection(command, async (connection) => {
        const key = await call(connection, deleteApiV1AdminKeysById({ client: connection.client, path: { id } }));
        if (connection.json) return printJson(key);
        print(`revoked ${key.id}${key.name === null ? '' : ` (${key.name})`} at ${key.revoked_at ?? '?'}`);
      }),
    );

  registerKeyUsage(keys);
}
