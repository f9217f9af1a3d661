// gateway-admin keys update | rotate: change a key's fields (PATCH, in force from its next
// request) and give it a new secret while the old one keeps working for a grace period.
import type { Command } from 'commander';
import { patchApiV1AdminKeysById, postApiV1AdminKeysByIdRotate } from '../../clients-ts/src/index.ts';
import { withConnection } from '../connection.ts';
import { call, usageError } from '../errors.ts';
import { addKeyFlags, keyBody, NONE, wholeNumber, type KeyFlags } from '../key-flags.ts';
import { print, printJson } from '../output.ts';
import { renderKey } from '../render-key.ts';

const MAX_GRACE_SECONDS = 2_592_000; // 30 days, as the admin API allows

export function registerKeyChanges(keys: Command): void {
  addKeyFlags(
    keys
      .command('update')
      .description(`change a key's fields; the flags left out stay as they are, ${NONE} clears one (in force from the key's next request)`)
      .argument('<id>', "the key's id (key_...)"),
    'update',
  )
    .addHelpText(
      'after',
      [
        '\nExamples:',
        '  gateway-admin keys update key_01... --budget-cents 10000 --budget-period monthly',
        '  gateway-admin keys update key_01... --rpm none --models none   # no rate limit, every model',
        '  gateway-admin keys update key_01... --expires-at 2026-12-31 --team research',
      ].join('\n'),
    )
    .action((id: string, flags: KeyFlags, command: Command) =>
      withConnection(command, async (connection) => {
        const body = keyBody(flags);
        if (Object.keys(body).length === 0) throw usageError('nothing to change: give at least one field flag (see keys update --help)');
        const key = await call(connection, patchApiV1AdminKeysById({ client: connection.client, path: { id }, body }));
        if (connection.json) return printJson(key);
        print(renderKey(key));
      }),
    );

  keys
    .command('rotate')
    .description('give a key a new secret (same id, spend and limits); the old secret keeps working for --grace-seconds')
    .argument('<id>', "the key's id (key_...)")
    .option(
      '--grace-seconds <int>',
      `how long the old secret keeps working (0 to ${MAX_GRACE_SECONDS}); 0, the default, ends it now`,
      wholeNumber(0, MAX_GRACE_SECONDS),
    )
    .addHelpText('after', '\nExample:\n  gateway-admin keys rotate key_01... --grace-seconds 3600   # an hour to roll the new secret out')
    .action((id: string, flags: { graceSeconds?: number }, command: Command) =>
      withConnection(command, async (connection) => {
        const body = flags.graceSeconds === undefined ? {} : { grace_seconds: flags.graceSeconds };
        const key = await call(connection, postApiV1AdminKeysByIdRotate({ client: connection.client, path: { id }, body }));
        if (connection.json) return printJson(key);
        const old = key.previous_secret_until === null ? 'The old secret is refused from now on.' : `The old secret works until ${key.previous_secret_until}.`;
        print(`${renderKey(key, [['secret', key.secret]])}\n\nThe new secret is shown this once: store it now. ${old}`);
      }),
    );
}
