// gateway-admin usage and keys usage ID: requests, tokens and cost from the gateway's spend
// ledger over a time range, grouped by day, model, key and team.
import type { Command } from 'commander';
import { getApiV1AdminKeysByIdUsage, getApiV1AdminUsage, type UsageReport, type UsageRow } from '../../clients-ts/src/index.ts';
import { withConnection } from '../connection.ts';
import { call } from '../errors.ts';
import { moment } from '../key-flags.ts';
import { dollars, print, printJson, table } from '../output.ts';

const GROUPS = ['day', 'model', 'key', 'team'] as const;

interface UsageFlags {
  from?: string;
  to?: string;
  groupBy?: string;
}

function addUsageFlags(command: Command): Command {
  return command
    .option('--from <time>', 'requests settled from then on: 2026-01-01 (UTC midnight) or 2026-01-01T09:00:00Z; default: the first', moment)
    .option('--to <time>', 'requests settled before then (exclusive): 2026-02-01 ends January; default: now', moment)
    .option('--group-by <groups>', `comma-separated, in order: ${GROUPS.join(', ')}; default: one row of totals`)
    .addHelpText('after', '\nExample:\n  gateway-admin usage --from 2026-01-01 --to 2026-02-01 --group-by team,model');
}

/** The flags as the API's query; group_by is passed as written (the gateway names what it does not know). */
function usageQuery(flags: UsageFlags) {
  return {
    ...(flags.from !== undefined && { from: flags.from }),
    ...(flags.to !== undefined && { to: flags.to }),
    ...(flags.groupBy !== undefined && { group_by: flags.groupBy.replace(/\s+/g, '') }),
  };
}

export function registerUsage(program: Command): void {
  addUsageFlags(program.command('usage').description('who spent what, on which model, on which day: requests, tokens and cost from the spend ledger')).action(
    (flags: UsageFlags, command: Command) =>
      withConnection(command, async (connection) => {
        const report = await call(connection, getApiV1AdminUsage({ client: connection.client, query: usageQuery(flags) }));
        if (connection.json) return printJson(report);
        print(renderUsage(report));
      }),
  );
}

export function registerKeyUsage(keys: Command): void {
  addUsageFlags(
    keys.command('usage').description("one key's requests, tokens and cost from the spend ledger").argument('<id>', "the key's id (key_...)"),
  ).action((id: string, flags: UsageFlags, command: Command) =>
    withConnection(command, async (connection) => {
      const report = await call(connection, getApiV1AdminKeysByIdUsage({ client: connection.client, path: { id }, query: usageQuery(flags) }));
      if (connection.json) return printJson(report);
      print(renderUsage(report));
    }),
  );
}

/** One line per group, then the total; cost exactly, in dollars. */
export function renderUsage(report: UsageReport): string {
  const groups = report.group_by.flatMap((group) => (group === 'key' ? ['key', 'name'] : [group]));
  const cells = (row: UsageRow, first: readonly string[]) => [
    ...first,
    String(row.requests),
    String(row.input_tokens),
    String(row.output_tokens),
    String(row.cache_read_tokens),
    String(row.cache_write_tokens),
    dollars(row.cost_usd),
  ];
  const rows = report.rows.map((row) =>
    cells(
      row,
      groups.map((group) => groupCell(row, group)),
    ),
  );
  const total = cells(report.total, groups.length === 0 ? [] : ['total', ...groups.slice(1).map(() => '')]);
  const range = `${report.from ?? 'the first request'} to ${report.to ?? 'now'}`;
  return [`usage from ${range}`, table([...groups, 'requests', 'input', 'output', 'cache read', 'cache write', 'cost'], [...rows, total])].join('\n');
}

function groupCell(row: UsageRow, group: string): string {
  switch (group) {
    case 'day':
      return row.day ?? '';
    case 'model':
      return row.model ?? '';
    case 'key':
      return row.key_id ?? '';
    case 'name':
      return row.key_name ?? '';
    default:
      return row.team ?? '(no team)';
  }
}
