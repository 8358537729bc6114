import { defineConfig } from 'vitest/config';
import LongestFirst from './test/setup/sequencer.js';

/**
 * Files that measure the box itself: a bound relative to a control taken in the same test, a p99, a
 * heap or GC figure, a timer's period told apart from another. A file running beside them would load
 * the measured phase and not its control, so they run one at a time, after the others, with the
 * machine to themselves.
 */
const ALONE = [
  'test/integration/limits.test.ts',
  'test/integration/redis-hang.test.ts',
  'test/integration/graphql-limits.test.ts',
  'test/integration/positions-export-fairness.test.ts',
  'test/integration/bench-load.test.ts',
  'test/e2e/faults.test.ts',
];

/** Files that measure their own process's heap or garbage collector: a fresh worker each, at the end. */
const OWN_HEAP = [
  'test/integration/positions-export-memory.test.ts',
  'test/unit/connection-promotion.test.ts',
];

/** Files that drive a browser (playwright). */
const BROWSER = ['test/e2e/web.test.ts'];

const SHARED_WORKERS = 4;

export default defineConfig({
  // Node resolves `graphql` (no exports map) to its CommonJS entry for the externalised libraries
  // (Pothos, yoga); vite would pick index.mjs for our files: two copies. Pin ours to Node's choice.
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    globalSetup: ['./test/setup/seed.ts', './test/setup/devnet.ts', './test/setup/database.ts'],
    // The tests' fetch closes idle connections before any server of the suite can (test/setup/httpClient.ts).
    setupFiles: ['./test/setup/httpClient.ts'],
    pool: 'forks',
    // The longest files first, also on a fresh clone (test/setup/sequencer.ts).
    sequence: { sequencer: LongestFirst },
    // Hang guards, not bounds: under three files at a time and a busy core the longest tests (the fuzz
    // run, 20 rounds of state kills, a restart under -9) took up to 30 s, which the old 30 s guard cut.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // Per-file and per-test durations of every run in test-results/vitest.json; the ten slowest files
    // printed at the end.
    reporters: ['default', 'json', './test/reporters/slowestFiles.ts'],
    outputFile: { json: 'test-results/vitest.json' },
    projects: [
      {
        extends: true,
        // Four files at a time on two cores: most of a file's time is spent waiting for a chain, a
        // timer or a child process, not computing (a whole run kept 1.2 cores busy on average; three at
        // a time took 318 s, four 290 s on one box). Five ran out of PostgreSQL's 100 connections on a
        // busy box (each file's services hold their pools); four peaked at 82. Each file's chains, servers and ports are its own
        // (test/helpers/ports.ts moves fixed ports by the worker's pool id), and what these files wait
        // for is an event, never the clock. One worker runs many files (no fresh import per file).
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts'],
          exclude: [...ALONE, ...OWN_HEAP, ...BROWSER],
          maxWorkers: SHARED_WORKERS,
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        // Beside the shared files, in a worker of its own that ends with it: importing playwright leaves
        // async hooks installed for the life of the process, which slowed every later await in a worker.
        test: {
          name: 'browser',
          include: BROWSER,
          maxWorkers: SHARED_WORKERS,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        // One worker for all of them, one file after another, keeping its imports.
        test: {
          name: 'alone',
          include: ALONE,
          fileParallelism: false,
          isolate: false,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: { name: 'own-heap', include: OWN_HEAP, fileParallelism: false, sequence: { groupOrder: 2 } },
      },
    ],
  },
});
