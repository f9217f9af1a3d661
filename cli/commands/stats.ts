// gateway-admin stats: the running gateway's snapshot (GET /stats): requests, latency, tokens,
// spend, keys, and the breaker state of every pool and lane.
import type { Command } from 'commander';
import { getStats, type LaneStats, type LatencySummary, type StatsView } from '../../clients-ts/src/index.ts';
import { withConnection } from '../connection.ts';
import { call } from '../errors.ts';
import { cents, duration, fields, print, printJson, table } from '../output.ts';

export function registerStats(program: Command): void {
  program
    .command('stats')
    .description('show requests, latency percentiles, tokens, spend, keys and breaker state per pool and lane')
    .action((_options: unknown, command: Command) =>
      withConnection(command, async (connection) => {
        const stats = await call(connection, getStats({ client: connection.client }));
        if (connection.json) printJson(stats);
        else print(renderStats(stats));
      }),
    );
}

export function renderStats(stats: StatsView): string {
  const r = stats.requests;
  const t = stats.tokens;
  const lanes = stats.pools.flatMap((pool) =>
    pool.lanes.map((lane) => [
      pool.pool,
      lane.lane,
      String(lane.weight),
      lane.state,
      String(lane.in_flight),
      String(lane.counters.successes),
      String(lane.counters.lane_faults),
      String(lane.counters.capacity_faults),
      String(lane.counters.trips),
      until(lane),
    ]),
  );
  return [
    fields([
      ['version', stats.version],
      ['config version', stats.config_version],
      ['uptime', duration(stats.uptime_seconds)],
      [
        'requests',
        `${r.total} total, ${r.completed} completed, ${r.failed} failed, ${r.in_flight} in flight, ${r.failovers} failovers, ${r.client_gone} client gone`,
      ],
      ['latency', percentiles(stats.latency_ms)],
      ['first byte', percentiles(stats.ttfb_ms)],
      [
        'tokens',
        `input ${t.input_tokens}, output ${t.output_tokens}, cache read ${t.cache_read_tokens}, cache write ${t.cache_write_tokens}, reasoning ${t.reasoning_tokens}`,
      ],
      ['spent', `${cents(stats.spent_cents)} (exactly $${stats.spent_usd})`],
      ['keys', stats.keys === undefined ? 'no store (db_path is not set)' : `${stats.keys.total} (${stats.keys.active} active, ${stats.keys.revoked} revoked)`],
    ]),
    '',
    table(['pool', 'lane', 'weight', 'state', 'in flight', 'successes', 'lane faults', '429s', 'trips', 'until'], lanes),
  ].join('\n');
}

function percentiles(summary: LatencySummary): string {
  if (summary.window === 0 || summary.p50 === null) return 'no answered requests yet';
  return `p50 ${summary.p50} ms, p90 ${summary.p90} ms, p99 ${summary.p99} ms (last ${summary.window} answered requests)`;
}

/** The deadline that keeps a lane out now, with what it is. */
function until(lane: LaneStats): string {
  const deadlines: [string | null, string][] = [
    [lane.open_until, 'open'],
    [lane.capacity_cooldown_until, '429 cooldown'],
    [lane.config_cooldown_until, 'config cooldown'],
  ];
  return deadlines
    .filter(([at]) => at !== null)
    .map(([at, what]) => `${what} until ${at}`)
    .join('; ');
}
