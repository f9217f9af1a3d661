// The configuration loader's thread lives with the gateway: started with it (so no reload waits for
// a thread's bootstrap, which runs at normal priority and took a core from the serving threads just
// then), the same thread for every reload, started again when it dies, and gone when the gateway
// closes. Two data-plane workers, as in production.
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayConfigControl } from '../../server/app/config-control.ts';
import { startHarness, type Harness } from '../support/gateway-harness.ts';
import { until } from '../support/steady-load.ts';

let h: Harness;
let control: GatewayConfigControl;
let file: string;
let text: string;

beforeAll(async () => {
  h = await startHarness({ workers: 2, extraModelsYaml: '  priced: { provider: openai, model: up-priced, price: { input: 1, output: 1 } }\n' });
  control = h.gateway.configControl as GatewayConfigControl;
  file = h.gateway.config.source;
  text = readFileSync(file, 'utf8');
});
let closed = false;
afterAll(async () => {
  if (!closed) await h.close();
});

/** Rewrites the price, so every reload is a change that applies. */
async function reloadWithPrice(price: number): Promise<void> {
  writeFileSync(file, text.replace('price: { input: 1, output: 1 }', `price: { input: ${price}, output: ${price} }`));
  const outcome = await control.reloadFromFile('reload');
  expect(outcome).toMatchObject({ applied: true, unchanged: false });
  expect(h.gateway.config.models.get('priced')?.price).toEqual({ input: price, output: price });
}

describe('the configuration loader thread', () => {
  it('exists before the first reload and serves every reload after, the same thread', async () => {
    const started = control.loaderThreadId();
    expect(started).toBeGreaterThan(0);
    await reloadWithPrice(2);
    expect(control.loaderThreadId()).toBe(started);
    await reloadWithPrice(3);
    expect(control.loaderThreadId()).toBe(started);
  });

  it('is started again when it dies, and the next reload uses the new one', async () => {
    const first = control.loaderThreadForTests()!;
    const firstId = first.threadId;
    const exited = new Promise((resolve) => first.once('exit', resolve));
    await first.terminate(); // as a crash would end it: not through close()
    await exited;
    await until('another loader thread', () => control.loaderThreadId() !== undefined && control.loaderThreadId() !== firstId, 5000);
    const second = control.loaderThreadId();
    await reloadWithPrice(4);
    expect(control.loaderThreadId()).toBe(second);
  });

  it('ends with the gateway', async () => {
    const thread = control.loaderThreadForTests()!;
    const exited = new Promise((resolve) => thread.once('exit', resolve));
    closed = true;
    await h.close();
    await exited;
    expect(control.loaderThreadId()).toBeUndefined();
  });
});
