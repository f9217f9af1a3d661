// The hosted sign-in page as a person uses it: headless Chromium (Debian's, driven by
// playwright-core) opens GET /auth/token, signs in through the issuer's login form, lands on the key
// page, copies the key and uses it through the gateway. A screenshot of the key page is saved to
// test-artifacts/self-serve-key-page.png. Only loopback is reachable: anything else the pages ask
// for (the issuer's login form imports a web font) is aborted, and the gateway's pages ask for nothing.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSelfServeGateway, type SelfServeGateway } from './support/self-serve-gateway.ts';

const CHROMIUM = '/usr/bin/chromium';
/** Without these, Chromium waits on the network this machine does not have. */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const ARTIFACTS = new URL('../../test-artifacts/', import.meta.url).pathname;
const SCREENSHOT = join(ARTIFACTS, 'self-serve-key-page.png');

let g: SelfServeGateway;
let context: BrowserContext;
let profile: string;
const blocked: string[] = [];
const consoleErrors: string[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run scripts/system-packages.sh (make test does)`);
  g = await startSelfServeGateway();
  profile = mkdtempSync(join(tmpdir(), 'gateway-chromium-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    args: CHROMIUM_ARGS,
    headless: true,
    viewport: { width: 1100, height: 900 },
  });
  await context.route(
    (url) => url.hostname !== '127.0.0.1' && url.protocol !== 'data:',
    (route) => {
      blocked.push(route.request().url());
      return route.abort();
    },
  );
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: g.h.url });
}, 60_000);

afterAll(async () => {
  await context?.close();
  if (profile !== undefined) rmSync(profile, { recursive: true, force: true });
  await g?.close();
});

describe('signing in with a browser', () => {
  it("gets the key page after the issuer's login form; the key is copied and serves a request", async () => {
    const page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });

    await page.goto(`${g.h.url}/auth/token`);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Get your gateway key');
    await page.getByRole('link', { name: 'Sign in' }).click();

    // The issuer's development login form (any password), then its consent screen.
    await page.waitForURL(`${g.issuer.url}/interaction/**`);
    await page.locator('input[name="login"]').fill('alice');
    await page.locator('input[name="password"]').fill('correct horse battery staple');
    await page.locator('button[type="submit"]').click();
    await page.getByRole('button', { name: 'Continue' }).click();

    await page.waitForURL(`${g.h.url}/auth/token?**`);
    const key = (await page.getByTestId('key').textContent())?.trim() ?? '';
    expect(key).toMatch(/^gwk_[A-Za-z0-9_-]{43}$/);
    expect(await page.getByTestId('team').textContent()).toBe('ml');
    expect(await page.getByTestId('remaining').textContent()).toBe('$5.00 of $5.00');
    expect(await page.locator('#snippet-env').textContent()).toContain(`OPENAI_BASE_URL="${g.h.url}/v1"`);

    // The copy button puts the key on the clipboard and says so to screen readers.
    await page.getByRole('button', { name: 'Copy key' }).click();
    await expect.poll(() => page.locator('#copy-status').textContent()).toBe('Key copied to the clipboard.');
    // (The suite compiles without DOM types: the page's navigator is described here.)
    expect(await page.evaluate(() => (navigator as unknown as { clipboard: { readText(): Promise<string> } }).clipboard.readText())).toBe(key);

    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });

    const chat = await fetch(`${g.h.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt', messages: [{ role: 'user', content: 'hello from Chromium' }] }),
    });
    expect(chat.status).toBe(200);
    expect(JSON.stringify(await chat.json())).toContain('hello from Chromium');

    // The key page is not kept: a reload is a spent sign-in, without the key.
    await page.reload();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Sign-in expired');
    expect(await page.content()).not.toContain(key);

    // The gateway's own pages asked for nothing beyond loopback, and the CSP let their style and script run.
    expect(blocked.filter((url) => !url.includes('fonts.googleapis.com'))).toEqual([]);
    expect(consoleErrors.filter((text) => /Content Security Policy/i.test(text))).toEqual([]);
    expect(existsSync(SCREENSHOT)).toBe(true);
  }, 60_000);
});
