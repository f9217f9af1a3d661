// A target's whole process tree from /proc: a peer such as LiteLLM runs its workers as child
// processes (and npx-started tools wrap their server in one), so CPU and RSS charged to only the
// process the bench started would flatter them. The gateway is one process (its workers are
// threads), for which the tree is the process itself.
import { readdirSync, readFileSync } from 'node:fs';
import { processCpuMicros, processRssMiB } from './process-cpu.ts';

/** `pid` and every process below it, read from each process's parent in /proc/<pid>/stat. */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // ended meanwhile
    }
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    const list = children.get(parent);
    if (list === undefined) children.set(parent, [Number(entry)]);
    else list.push(Number(entry));
  }
  const tree: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const next = queue.pop()!;
    tree.push(next);
    queue.push(...(children.get(next) ?? []));
  }
  return tree;
}

/** Sums a reading over the tree; a process that ended between the listing and the reading counts 0. */
function sumOver(pid: number, read: (pid: number) => number): number {
  let sum = 0;
  for (const p of processTree(pid)) {
    try {
      sum += read(p);
    } catch {
      // ended: its CPU is in its parent's cutime only once waited for, so a sample ends with the tree it began with
    }
  }
  return sum;
}

/** User + system CPU of the tree in µs (every thread of every process). */
export const treeCpuMicros = (pid: number): number => sumOver(pid, processCpuMicros);

/** RSS of the tree in MiB (shared pages of forked workers are counted in each, as `ps` does). */
export const treeRssMiB = (pid: number): number => sumOver(pid, processRssMiB);
