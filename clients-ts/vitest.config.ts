// The client's own suite; run by scripts/test.sh against a live gateway (GATEWAY_ENDPOINT,
// GATEWAY_ADMIN_TOKEN from test/support/live-gateway.ts), not by the root `make test-ts`.
// Caches go to the root node_modules, so clients-ts/ holds only its sources.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const rootModules = (path: string) => fileURLToPath(new URL(`../node_modules/${path}`, import.meta.url));

export default defineConfig({
  cacheDir: rootModules('.vite/clients-ts'),
  test: {
    include: ['test/*.test.ts'],
    testTimeout: 20_000,
    fsModuleCachePath: rootModules('.vitest-cache'),
  },
});
