// gateway-admin keys create | list | revoke: virtual keys with a budget and a rate limit.
import { InvalidArgumentError, type Command } from 'commander';
import { deleteApiV1AdminKeysById, getApiV1AdminKeys, postApiV1AdminKeys, type KeyView } from '../../clients-ts/src/index.ts';
import { withConnection } from '../connection.ts';
import { call } from '../errors.ts';
import { cents, fields, orNone, print, printJson, table } from '../output.ts';

const MAX_BUDGET_CENTS = 1_000_000_000_000;
const MAX_RPM = 1_000_000;

export function registerKeys(program: Command): void {
  const keys = program.command('keys').description('virtual keys: create, list, revoke');

  keys
    .command('create')
    .description('create a virtual key; its secret is printed once, now, and never again')
    // Both limits are optional, as in the admin API: a key without one is limited by nothing but revocation.
    .option(
      '--budget-cents <int>',
      `spend allowed over the key's life, in US cents (0 to ${MAX_BUDGET_CENTS}); none if absent`,
      wholeNumber(0, MAX_BUDGET_CENTS),
    )
    .option('--rpm <int>', `requests per minute (1 to ${MAX_RPM}); no limit if absent`, wholeNumber(1, MAX_RPM))
    .option('--name <name>', 'what the key is for, for people (1 to 200 characters)', text('--name'))
    .option('--owner <owner>', 'who holds the key, for people (1 to 200 characters)', text('--owner'))
    .addHelpText(
      'after',
      '\nExamples:\n  gateway-admin keys create --budget-cents 5000 --rpm 60 --name ci-bot\n  gateway-admin keys create --rpm 120 --owner ops   # a rate limit, no budget',
    )
    .action((options: { budgetCents?: number; rpm?: number; name?: string; owner?: string }, command: Command) =>
      withConnection(command, async (connection) => {
        const body = {
          ...(options.budgetCents !== undefined && { budget_cents: options.budgetCents }),
          ...(options.rpm !== undefined && { rpm: options.rpm }),
          ...(options.name !== undefined && { name: options.name }),
          ...(options.owner !== undefined && { owner: options.owner }),
        };
        const key = await call(connection, postApiV1AdminKeys({ client: connection.client, body }));
        if (connection.json) return printJson(key);
        print(`${renderKey(key, [['secret', key.secret]])}\n\nThe secret is shown this once: store it now.`);
      }),
    );

  keys
    .command('list')
    .description('list every virtual key, oldest first, with its spend (never a secret)')
    .action((_options: unknown, command: Command) =>
      withConnection(command, async (connection) => {
        const list = await call(connection, getApiV1AdminKeys({ client: connection.client }));
        if (connection.json) return printJson(list);
        if (list.data.length === 0) return print('no keys');
        print(
          table(
            ['id', 'name', 'owner', 'prefix', 'budget', 'spent', 'remaining', 'rpm', 'created', 'status'],
            list.data.map((k) => [
              k.id,
              k.name ?? '',
              k.owner ?? '',
              k.prefix,
              cents(k.budget_cents),
              cents(k.spent_cents),
              cents(k.remaining_cents),
              orNone(k.rpm),
              k.created_at,
              k.revoked_at === null ? 'active' : 'revoked',
            ]),
          ),
        );
      }),
    );

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
}

function renderKey(key: KeyView, extra: readonly (readonly [string, string])[]): string {
  return fields([
    ['id', key.id],
    ['name', key.name ?? ''],
    ['owner', key.owner ?? ''],
    ['prefix', key.prefix],
    ['budget', cents(key.budget_cents)],
    ['spent', cents(key.spent_cents)],
    ['rpm', orNone(key.rpm)],
    ['created', key.created_at],
    ...extra,
  ]);
}

/** A commander parser for a whole number in [min, max]; anything else is a usage error. */
function wholeNumber(min: number, max: number): (value: string) => number {
  return (value) => {
    const n = /^-?\d+$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
    if (!Number.isSafeInteger(n)) throw new InvalidArgumentError(`expected a whole number from ${min} to ${max}, got ${JSON.stringify(value)}`);
    if (n < min || n > max) throw new InvalidArgumentError(`must be from ${min} to ${max}, got ${n}`);
    return n;
  };
}

function text(flag: string): (value: string) => string {
  return (value) => {
    if (value.length < 1 || value.length > 200) throw new InvalidArgumentError(`${flag} must be 1 to 200 characters long`);
    return value;
  };
}
