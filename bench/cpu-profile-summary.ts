// Reads a V8 .cpuprofile (node --cpu-prof) and sums busy time by where the code lives: the
// gateway's own folders, npm packages, Node internals, and native frames (the kernel calls behind
// writev, the garbage collector). Idle time is left out, so shares are of CPU actually spent.
import { readFileSync } from 'node:fs';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string };
}
interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface ShareRow {
  readonly where: string;
  readonly percent: number;
}

export function summariseProfile(path: string, root: string): ShareRow[] {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const frames = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const byWhere = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const frame = frames.get(id);
    const micros = profile.timeDeltas[i] ?? 0;
    if (frame === undefined || frame.functionName === '(idle)') return;
    busy += micros;
    const where = placeOf(frame.url, frame.functionName, root);
    byWhere.set(where, (byWhere.get(where) ?? 0) + micros);
  });
  return [...byWhere]
    .map(([where, micros]) => ({ where, percent: Math.round((micros / Math.max(1, busy)) * 1000) / 10 }))
    .sort((a, b) => b.percent - a.percent);
}

function placeOf(url: string, functionName: string, root: string): string {
  const path = url.startsWith('file://') ? decodeURIComponent(url.slice('file://'.length)) : url;
  if (path.startsWith(`${root}/server/`))
    return `gateway ${path
      .slice(root.length + 1)
      .split('/')
      .slice(0, 2)
      .join('/')}`;
  if (path.startsWith(`${root}/generated/`)) return 'gateway generated/validators';
  const npm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (npm !== null) return `npm ${npm[1]}`;
  if (path.startsWith('node:')) return `node ${path.replace(/^node:(internal\/)?/, '').split('/')[0]}`;
  if (path === '') return `native ${functionName}`;
  return `other ${path.slice(0, 60)}`;
}
