import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Each file starts its own loopback servers on ephemeral ports, so files can run in parallel.
    pool: 'forks',
    // One temporary directory per run, removed at its end (see the file).
    globalSetup: ['test/support/test-temp-root.ts'],
  },
});
