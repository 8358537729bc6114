import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Node resolves `graphql` (no exports map) to its CommonJS entry for the externalised libraries
  // (Pothos, yoga); vite would pick index.mjs for our files: two copies. Pin ours to Node's choice.
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['./test/setup/seed.ts', './test/setup/devnet.ts'],
    pool: 'forks',
    // Two cores: test files run one at a time, so anvil chains, Postgres and the servers the suites
    // start never compete for the CPU with each other.
    fileParallelism: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Per-file and per-test durations of every run in test-results/vitest.json; the ten slowest files
    // printed at the end.
    reporters: ['default', 'json', './test/reporters/slowestFiles.ts'],
    outputFile: { json: 'test-results/vitest.json' },
  },
});
