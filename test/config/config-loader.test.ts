// Candidate configurations are loaded on the loader's own thread (the main thread serves requests
// meanwhile), with the same verdicts as loading in place: the configuration, or every problem.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigLoader } from '../../server/config/config-loader.ts';
import { loadConfigText } from '../../server/config/load-config.ts';

const BASE = 'listen: 127.0.0.1:0\nmodels:\n  demo: { provider: demo, model: demo-echo, price: { input: 1, output: 2 } }\n';
const base = loadConfigText(BASE, '/tmp/config.yaml', '/tmp');
const candidate = (text: string) => ({ text, file: '/tmp/config.yaml', baseDir: '/tmp', options: {}, base });

describe('ConfigLoader', () => {
  it('loads on its own thread what loading in place gives', async () => {
    const loader = new ConfigLoader();
    const verdict = await loader.load(candidate(BASE.replace('input: 1', 'input: 5')));
    expect('config' in verdict && verdict.config.models.get('demo')?.price).toEqual({ input: 5, output: 2 });
    expect(loader.threadForTests).toBeDefined(); // answered by the thread, not in place
    await loader.close();
  });

  // The loader takes only CPU the serving threads leave (background-priority.ts): its thread runs
  // at nice 19 while every other thread of the process keeps its priority.
  it.skipIf(process.platform !== 'linux')('runs its thread at the lowest CPU priority, and only that thread', async () => {
    const nices = () => readdirSync('/proc/self/task').map((tid) => Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]));
    const before = nices();
    expect(before).not.toContain(19);
    const loader = new ConfigLoader();
    await loader.load(candidate(BASE));
    const after = nices();
    expect(after.filter((nice) => nice === 19)).toHaveLength(1);
    expect(after.filter((nice) => nice !== 19)).toEqual(after.filter((nice) => nice !== 19).map(() => before[0]));
    await loader.close();
  });

  // A thread that keeps dying (a broken install, say) is not restarted in a loop: loads go on in place.
  it('starts a dead thread again, and gives up on one that keeps dying', async () => {
    const warnings: string[] = [];
    const loader = new ConfigLoader((message) => warnings.push(message));
    loader.start();
    for (let death = 1; death <= 4; death++) {
      const thread = loader.threadForTests!;
      const exited = new Promise((resolve) => thread.once('exit', resolve));
      await thread.terminate();
      await exited;
      if (death <= 3) expect(loader.threadId).not.toBe(thread.threadId);
    }
    expect(loader.threadId).toBeUndefined();
    expect(warnings.at(-1)).toMatch(/failed 4 times in a minute .*: loading on the main thread from now on/);
    const verdict = await loader.load(candidate(BASE));
    expect('config' in verdict).toBe(true);
    await loader.close();
  });

  it('gives back every problem, restart-only settings included, located in the text', async () => {
    const loader = new ConfigLoader();
    const verdict = await loader.load(candidate(`${BASE.replace('127.0.0.1:0', '127.0.0.1:9')}  other: { provider: nowhere, model: x }\n`));
    expect('problems' in verdict && verdict.problems.map((p) => `${p.line}: ${p.path}: ${p.message}`)).toEqual([
      expect.stringMatching(/^4: models\.other\.provider: unknown provider "nowhere"/),
    ]);
    const restart = await loader.load(candidate(BASE.replace('127.0.0.1:0', '127.0.0.1:9')));
    expect('problems' in restart && restart.problems.map((p) => `${p.line}: ${p.path}: ${p.message}`)).toEqual([
      expect.stringMatching(/^1: listen: changed, which needs a restart/),
    ]);
    await loader.close();
  });
});
