import { defineConfig } from 'vitest/config';

// Two cores: test files run one at a time in one fork, so anvil chains, Postgres and the servers the
// suites start never compete for the CPU with each other.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
