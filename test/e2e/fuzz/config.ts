/**
 * The fuzz run's knobs: the devnet's ports, the concurrency, the scale and how many requests each
 * endpoint gets (shared between the fixed seed and the run's random one: test/helpers/seeds.ts).
 */
import { testPort } from '../../helpers/ports.js';

export const BASE_PORT = testPort(19600);
export const CONCURRENCY = 12;
/** FUZZ_SCALE=0.1 for a quick look while developing; the suite's own run is 1 (≥ 10,000 requests). */
export const SCALE = Number(process.env.FUZZ_SCALE ?? 1);

/** Generated requests per endpoint (10,200 in all). */
export const RUNS = {
  stats: 600,
  chains: 600,
  strategies: 1000,
  'strategy-detail': 800,
  quote: 1000,
  badge: 600,
  pilot: 700,
  balances: 800,
  prepare: 1800,
  position: 900,
  graphql: 800,
  unknown: 600,
} as const;
export type Endpoint = keyof typeof RUNS;
