// One load sample with wrk (the C load generator the comparison table used): one wrk
// thread holding every connection, so the generator takes at most one core and far less CPU per
// request than autocannon in the bench's own Node process, leaving the target the cores it would
// have on a machine of its own. The request comes from a Lua script written per sample; its done()
// prints the numbers as one JSON line, with wrk's own CPU from /proc/self/stat.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClientRequest } from './client-requests.ts';

export interface WrkResult {
  readonly requests: number;
  readonly seconds: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Connect, read, write errors, timeouts and answers with a status of 400 or more. */
  readonly errors: number;
  /** wrk's own user + system CPU over the sample, in µs. */
  readonly clientCpuMicros: number;
}

const MARK = 'BENCH-WRK ';

/** A Lua long string whose brackets do not occur in `text`. */
function luaString(text: string): string {
  let level = '';
  while (text.includes(`]${level}]`)) level += '=';
  return `[${level}[${text}]${level}]`;
}

function script(request: ClientRequest): string {
  const headers = Object.entries(request.headers).map(([k, v]) => `wrk.headers[ ${luaString(k)} ] = ${luaString(v)}`);
  return [
    'wrk.method = "POST"',
    `wrk.body = ${luaString(request.body)}`,
    ...headers,
    'function done(summary, latency, requests)',
    '  local f = io.open("/proc/self/stat"); local stat = f:read("*a"); f:close()',
    '  local fields = {}',
    '  for v in stat:match("%) (.*)"):gmatch("%S+") do fields[#fields + 1] = v end',
    '  local e = summary.errors',
    `  io.write(string.format('${MARK}{"requests":%d,"micros":%d,"p50":%d,"p99":%d,"errors":%d,"ticks":%d}\\n',`,
    '    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),',
    '    e.connect + e.read + e.write + e.status + e.timeout, tonumber(fields[12]) + tonumber(fields[13])))',
    'end',
    '',
  ].join('\n');
}

export async function runWrk(url: string, request: ClientRequest, connections: number, seconds: number): Promise<WrkResult> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-wrk-'));
  try {
    const file = join(dir, 'request.lua');
    writeFileSync(file, script(request));
    const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '--timeout', '30s', '-s', file, url + request.path];
    const output = await new Promise<string>((resolve, reject) => {
      const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      child.once('error', reject);
      child.once('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`wrk ${args.join(' ')} exited with ${code}: ${err}${out}`))));
    });
    const line = output.split('\n').find((l) => l.startsWith(MARK));
    if (line === undefined) throw new Error(`wrk printed no result line:\n${output}`);
    const r = JSON.parse(line.slice(MARK.length)) as { requests: number; micros: number; p50: number; p99: number; errors: number; ticks: number };
    return {
      requests: r.requests,
      seconds: r.micros / 1e6,
      p50Ms: r.p50 / 1000,
      p99Ms: r.p99 / 1000,
      errors: r.errors,
      clientCpuMicros: r.ticks * 10_000,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
