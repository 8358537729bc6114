/**
 * Global setup: the run's random seed. Property and fuzz tests run under a fixed seed and this one
 * (test/helpers/seeds.ts), so every run covers the cases CI always sees plus new ones. TEST_SEED=<n>
 * replays a run: every seeded test then runs under n alone. The seed is printed at the start and at the
 * end (test/reporters/slowestFiles.ts) and named by every seeded test's title.
 */
import { randomInt } from 'node:crypto';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    randomSeed: number;
  }
}

function seedOfEnvironment(value: string | undefined): number {
  if (value === undefined || value === '') return randomInt(2 ** 31);
  if (!/^\d{1,10}$/.test(value) || Number(value) >= 2 ** 31)
    throw new Error(`TEST_SEED must be an integer from 0 to 2^31-1, not ${JSON.stringify(value)}`);
  return Number(value);
}

export default function setup(project: TestProject): void {
  // Every project of vitest.config.ts runs this; the first picks the run's seed and the others take it.
  const picked = process.env.TEST_RUN_SEED;
  const seed = picked === undefined ? seedOfEnvironment(process.env.TEST_SEED) : Number(picked);
  project.provide('randomSeed', seed);
  if (picked !== undefined) return;
  // The reporter runs in this process and prints it again under the slowest files.
  process.env.TEST_RUN_SEED = String(seed);
  process.stdout.write(`random seed of this run: ${seed} (replay with TEST_SEED=${seed})\n`);
}
