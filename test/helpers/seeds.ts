/**
 * The seeds a property or fuzz test runs under: the fixed seed (the cases every CI run sees) and the
 * run's random one (test/setup/seed.ts), or TEST_SEED alone when it is set (a replay). A seeded test
 * names its seed in its title, so a failure says how to reproduce it.
 */
import { inject } from 'vitest';

export const FIXED_SEED = 20_261_129;

export function seeds(): number[] {
  const random = inject('randomSeed');
  return process.env.TEST_SEED || random === FIXED_SEED ? [random] : [FIXED_SEED, random];
}

/** The run's random seed alone, for a test too costly to run twice (TEST_SEED when replaying). */
export function runSeed(): number {
  return inject('randomSeed');
}

/** A property's runs shared among the seeds, for a test whose cases cost requests: the same budget in all. */
export function runsPerSeed(runs: number): number {
  return Math.ceil(runs / seeds().length);
}
