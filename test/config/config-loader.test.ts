// Candidate configurations are loaded on the loader's own thread (the main thread serves requests
// meanwhile), with the same verdicts as loading in place: the configuration, or every problem.
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
    expect((loader as unknown as { worker?: unknown }).worker).toBeDefined(); // answered by the thread, not in place
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
