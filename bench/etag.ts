/**
 * `npm run bench:etag`: what the ETag of an uncached read costs (rest/httpCache.ts `tagOf`), per body,
 * on a list page's worth of JSON (20 strategies, ~12 K characters). Every request builds a new body
 * string, so each variant is given a fresh one per call:
 *   fresh body only        building the string (subtracted from nothing: the floor)
 *   Map.get(body)          a memo keyed by content (what httpCache did before): V8 hashes all of a new
 *                          string to look it up, as it caches a hash only in the string it computed on
 *   SHA-1 (createHash)     the tag itself, what httpCache does now
 *   Buffer.from(body)      the UTF-8 encoding alone, for scale
 * Median of BENCH_ROUNDS (7) rounds of 20,000 calls, in microseconds per call.
 */

import { strongTag } from '../rest/httpCache.js';
import { median } from './measure.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const CALLS = 20_000;
const entry = (i: number) => ({
  hash: `0x${String(i).padStart(64, 'a')}`,
  chain: 'base',
  maker: `0x${'b'.repeat(40)}`,
  tokens: ['USDC', 'USDT'].map((symbol) => ({
    symbol,
    address: `0x${'c'.repeat(40)}`,
    decimals: 6,
    initialAmount: '1000000000',
    currentAmount: '999999',
  })),
  volumeUsd: 1234.5,
  swapCount: 12,
  shipped: { at: '2026-11-26T10:00:00.000Z', block: 123, tx: `0x${'e'.repeat(64)}` },
});
const page = `{"data":${JSON.stringify({ strategies: Array.from({ length: 20 }, (_, i) => entry(i)) })}`;
/** A new string of the page's content per call, as a request's body is. */
const fresh = (i: number) => `${page}${i}`.slice(0, page.length);
const memo = new Map([[fresh(-1), 'tag']]);
const variants: Record<string, (i: number) => unknown> = {
  'fresh body only': (i) => fresh(i).length,
  'Map.get(body)': (i) => memo.get(fresh(i)),
  'SHA-1 (createHash)': (i) => strongTag(fresh(i)),
  'Buffer.from(body)': (i) => Buffer.from(fresh(i)),
};
const samples: Record<string, number[]> = {};
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, run] of Object.entries(variants)) {
    const started = performance.now();
    for (let i = 0; i < CALLS; i++) run(i);
    samples[name] = [...(samples[name] ?? []), ((performance.now() - started) / CALLS) * 1000];
  }
}
console.log(`ETag of a ${page.length}-character body, µs per call (median of ${ROUNDS} rounds of ${CALLS})`);
console.table(
  Object.entries(samples).map(([variant, values]) => ({
    variant,
    'µs/call': Number(median(values).toFixed(2)),
  })),
);
