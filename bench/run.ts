// `make bench`: the gateway against a zero-delay mock upstream that speaks all six protocols, with
// two baselines measured in the same run: the client talking to the mock directly, and a minimal
// Node keep-alive proxy. Each server is its own process; CPU comes from /proc (all threads of a
// process). Loopback only; every loop is bounded. It reports and judges the performance targets;
// it exits non-zero only when the benchmark itself fails (a failed target is a report, not a crash).
//
// Sections (bench/README.md says what each measures and how to read the table):
//   probe       unloaded latency in µs: one request at a time, direct / proxy / gateway interleaved
//   throughput  wrk (autocannon without it) at each connection count: req/s, p50/p99, CPU µs per
//               request of each target's process tree, the generator's own CPU per request, ratios
//   paced       16 concurrent streams of 20 chunks 10 ms apart: first byte, gaps, coalesced chunks
//   reload      a gateway of 200 models and 50 pools reloaded by SIGHUP 20 times under keep-alive load:
//               time to apply, and request latency before and during the reloads (none over 50 ms)
//   store       governance off / on SQLite / on PostgreSQL (a server started for the run): req/s,
//               added p50, gateway and database CPU per request (bench/results/store.json)
//   embeddings  POST /v1/embeddings (16 inputs x 1024 dims): direct / proxy / gateway same protocol and to Cohere
//   memory      RSS idle after start, peak at each connection count and over the run, after load
//               (gateways and peers; always, unless only reload runs)
//   soak        only with BENCH_SOAK_MINUTES (`make bench-soak`): load through a pool with one lane
//               failing (500, reset, hang): client errors, failovers, breaker trips, RSS slope
//
// Environment (defaults in brackets; BENCH_QUICK=1 changes the defaults marked quick:):
//   BENCH_QUICK=1               fast smoke run [off]
//   BENCH_SECONDS               seconds per load sample [4; quick: 1]
//   BENCH_REPEATS               interleaved repeats, each number is their median [3; quick: 1]
//   BENCH_CONNECTIONS           throughput connection counts [32,128]; comparison rows
//                               (workers: 1, the other four protocols) run at the first one only
//   BENCH_FILTER                keep gateway scenarios whose name contains this (baselines always run)
//   BENCH_SECTIONS              comma list of probe,throughput,paced,reload,store,embeddings [all]
//   BENCH_WARMUP_REQUESTS       warm-up requests per scenario [2000; quick: 200]
//   BENCH_PROBE_ROUNDS          measured probe rounds per repeat [2000; quick: 200]
//   BENCH_PACED_ROUNDS          paced rounds per target and repeat [4; quick: 1]
//   BENCH_PACED_STREAMS         concurrent paced streams [16]
//   BENCH_PACED_CHUNKS          chunks per paced stream [20]
//   BENCH_PACED_INTERVAL_MS     ms between paced chunks [10]
//   BENCH_GATEWAY               gateway executable instead of `node server/main.ts`, e.g. dist/gateway [`make bench`: dist/gateway, built first]
//   BENCH_GENERATOR             wrk (installed on first use, the Debian package) or autocannon [wrk if it can be had]
//   BENCH_NETNS=0               run on the host network instead of a private namespace (unshare -n, root) [namespace]
//   BENCH_PEERS                 peer gateways beside this one: portkey,litellm (installed on first use into bench/.peers/) [none]
//   BENCH_SOAK_MINUTES          run the soak instead of the suite, for this long [`make bench-soak`: 10]
//   BENCH_SOAK_WARMUP_MINUTES   soak samples before this are left out of the slope [2]
//   BENCH_SOAK_SAMPLE_SECONDS   RSS sampling interval [10]
//   BENCH_SOAK_CONNECTIONS      [64]
//   BENCH_SOAK_RATE             most requests per second over all soak connections [500]
//   BENCH_SOAK_FAIL_PERCENT     share of the flaky lane's requests the mock fails [30]
//
// Output: the tables and target lines on stdout; bench/results/latest.json and latest.svg
// (bench/results/soak.json for the soak). bench/results/ is not checked in.
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { embeddingsTable, runEmbeddings, type EmbeddingsRow } from './embeddings.ts';
import { Fleet } from './fleet.ts';
import { formatStoreRows, runGovernanceStores, type StoreRow } from './governance-store.ts';
import { runLatencyProbe } from './latency-probe.ts';
import { runReloadBench } from './reload.ts';
import { formatReload } from './reload-report.ts';
import { memoryRows, PeakRss } from './memory.ts';
import { runPacedStreams } from './paced-streams.ts';
import { formatReport, resultsJson } from './report.ts';
import { resolveGenerator } from './load-generator.ts';
import { installPeers } from './peers.ts';
import { networkPlace, runInPrivateNetwork } from './private-network.ts';
import { gatewayVariantsFor } from './scenarios.ts';
import { readSettings, type Settings } from './settings.ts';
import { GATEWAY_ENV } from './gateway-config.ts';
import { runSoak } from './soak.ts';
import { cpuChartSvg } from './svg-chart.ts';
import { judge, type MeasuredRun } from './targets.ts';
import { runThroughput } from './throughput.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const resultsDir = join(root, 'bench/results');
const log = (line: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}`);

function describe(settings: Settings, fleet: Fleet): Record<string, unknown> {
  const gateway = fleet.gateways.get('gateway');
  return {
    date: new Date().toISOString(),
    node: process.versions.node,
    cores: availableParallelism(),
    loadavg_at_start: loadavg().map((x) => Math.round(x * 100) / 100),
    gateway_command: settings.gatewayCommand ?? 'node server/main.ts',
    gateway_malloc_arena_max: GATEWAY_ENV.MALLOC_ARENA_MAX,
    gateway_workers: gateway?.workers,
    generator: settings.generator,
    network: networkPlace(),
    peers: [...fleet.peers.values()].map((p) => ({ name: p.name, version: p.version, command: p.command })),
    settings: { ...settings, soak: settings.soak ?? null },
  };
}

function headline(settings: Settings, fleet: Fleet): string {
  const gateway = fleet.gateways.get('gateway');
  return [
    `gateway benchmark${settings.quick ? ' (QUICK: smoke run, numbers are noisy)' : ''}: ${settings.gatewayCommand ?? 'node server/main.ts'} (MALLOC_ARENA_MAX=${GATEWAY_ENV.MALLOC_ARENA_MAX} as deploy/ runs it), ` +
      `${gateway?.workers ?? '?'} workers on ${availableParallelism()} cores, load average ${loadavg()[0]!.toFixed(2)} at start`,
    `${settings.repeats} interleaved repeat(s), ${settings.seconds} s samples, connections ${settings.connections.join(',')}${settings.filter === undefined ? '' : `, filter "${settings.filter}"`}` +
      `, load by ${settings.generator}, ${networkPlace()}` +
      (fleet.peers.size === 0 ? '' : `, peers ${[...fleet.peers.values()].map((p) => `${p.name} ${p.version}`).join(', ')}`) +
      (settings.repeats < 3 ? ' (fewer than 3 repeats: not for the record)' : ''),
  ].join('\n');
}

/** The reload section starts its own gateway (a large configuration) and reports on its own. */
async function runReloadSection(settings: Settings): Promise<void> {
  const run = await runReloadBench(root, settings, log);
  console.log(formatReload(run));
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(join(resultsDir, 'reload.json'), JSON.stringify({ date: new Date().toISOString(), loadavg_at_start: loadavg(), ...run }, null, 2) + '\n');
  log(`written ${join(resultsDir, 'reload.json')}`);
}

async function runSuite(settings: Settings): Promise<void> {
  if (settings.sections.includes('reload')) await runReloadSection(settings);
  if (settings.sections.every((s) => s === 'reload')) return;
  const fleet = await Fleet.start(gatewayVariantsFor(settings), settings, root, settings.peers, log);
  const stopOnSignal = () => void fleet.stop().finally(() => process.exit(130));
  process.once('SIGINT', stopOnSignal);
  process.once('SIGTERM', stopOnSignal);
  const header = headline(settings, fleet);
  const meta = describe(settings, fleet);
  log(header.replace('\n', '; '));
  const peak = new PeakRss([...[...fleet.gateways.values()].map((g) => g.server.pid), ...[...fleet.peers.values()].map((p) => p.pid)]);
  let run: MeasuredRun;
  let storeRows: StoreRow[] = [];
  let embeddings: EmbeddingsRow[] = [];
  try {
    const probe = settings.sections.includes('probe') ? await runLatencyProbe(fleet, settings, log) : [];
    const throughput = settings.sections.includes('throughput') ? await runThroughput(fleet, settings, log, peak) : [];
    const paced = settings.sections.includes('paced') ? await runPacedStreams(fleet, settings, log) : [];
    storeRows = settings.sections.includes('store') ? await runGovernanceStores(settings, fleet.mock.url, log) : [];
    embeddings = settings.sections.includes('embeddings') ? await runEmbeddings(fleet, settings, log) : [];
    run = { probe, throughput, paced, memory: await memoryRows(fleet, peak), soak: undefined };
  } finally {
    peak.stop();
    await fleet.stop();
  }
  const verdicts = judge(run, embeddings);
  console.log(formatReport(run, verdicts, header) + embeddingsTable(embeddings));
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(join(resultsDir, 'latest.json'), JSON.stringify({ ...resultsJson(run, verdicts, meta), embeddings }, null, 2) + '\n');
  if (storeRows.length > 0) {
    console.log(`\ngovernance by store (OpenAI->OpenAI, non-stream; a key with a budget and an rpm)\n${formatStoreRows(storeRows)}`);
    writeFileSync(join(resultsDir, 'store.json'), JSON.stringify({ ...meta, rows: storeRows }, null, 2) + '\n');
  }
  const subtitle = `${String(meta.date).slice(0, 16)}, ${settings.quick ? 'QUICK run (noisy), ' : ''}${settings.repeats} repeat(s) x ${settings.seconds} s, ${fleet.gateways.get('gateway')?.workers} workers, median CPU us/req from /proc`;
  writeFileSync(join(resultsDir, 'latest.svg'), cpuChartSvg(run.throughput, subtitle));
  log(`written ${join(resultsDir, 'latest.json')} and latest.svg`);
}

async function runSoakMode(settings: Settings): Promise<void> {
  const soak = settings.soak!;
  const fleet = await Fleet.start(new Set(['gateway']), settings, root);
  const stopOnSignal = () => void fleet.stop().finally(() => process.exit(130));
  process.once('SIGINT', stopOnSignal);
  process.once('SIGTERM', stopOnSignal);
  const meta = describe(settings, fleet);
  let run: MeasuredRun;
  try {
    const result = await runSoak(fleet, soak, log);
    const gateway = fleet.gateways.get('gateway')!;
    run = { probe: [], throughput: [], paced: [], memory: [], soak: result };
    meta.rss_idle_mib = gateway.idleRssMiB;
  } finally {
    await fleet.stop();
  }
  const verdicts = judge(run).filter((v) => v.target.startsWith('soak'));
  console.log(
    formatReport(
      run,
      verdicts,
      `gateway soak: ${soak.minutes} min at up to ${soak.rate} req/s, ${soak.connections} connections, through a pool whose lane soak-flaky fails ${soak.failPercent}% (500, reset, hang)`,
    ),
  );
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(join(resultsDir, 'soak.json'), JSON.stringify(resultsJson(run, verdicts, meta), null, 2) + '\n');
  log(`written ${join(resultsDir, 'soak.json')}`);
}

// Before the private namespace (no network beyond loopback inside): the load generator and the peers.
process.env.BENCH_GENERATOR = resolveGenerator(root, process.env.BENCH_GENERATOR, log);
const settings = readSettings(root);
if (networkPlace() === 'host network') installPeers(root, settings.peers, log);
const code = await runInPrivateNetwork(log);
if (code !== undefined) process.exit(code);
await (settings.soak === undefined ? runSuite(settings) : runSoakMode(settings));
