/**
 * What a benched gateway's allocations outlive, for `npm run bench:survivors` (bench/survivors.ts),
 * installed by bench/servers/catalogue.ts when BENCH_SURVIVOR_PROBE=1 (node run with --expose-gc).
 *   `survivors start` (a line on its stdin): V8's sampling heap profiler starts, keeping the samples of
 *     objects that a mark-compact collects but dropping those that a scavenge collects: what is left are
 *     the allocations that outlived a scavenge (promoted, or copied and still alive).
 *   `survivors stop`: a scavenge first (young garbage that none has collected yet would count too), then
 *     the profile, printed as one line `survivors <json>` (inspector's SamplingHeapProfile).
 */
import type { HeapProfiler } from 'node:inspector';
import { Session } from 'node:inspector/promises';
import { createInterface } from 'node:readline';

/** Bytes between samples, on average. */
const SAMPLING_INTERVAL = 1024;

export function installSurvivorProbe(): void {
  const gc = (globalThis as { gc?: (options: { type: 'minor' }) => void }).gc;
  if (!gc) throw new Error('the survivor probe needs node --expose-gc');
  const session = new Session();
  session.connect();
  // node 20's typings of startSampling lack the two flags its V8 takes.
  const start: HeapProfiler.StartSamplingParameterType & Record<string, unknown> = {
    samplingInterval: SAMPLING_INTERVAL,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: false,
  };
  createInterface({ input: process.stdin }).on('line', (line) => {
    if (line === 'survivors start') void session.post('HeapProfiler.startSampling', start);
    if (line !== 'survivors stop') return;
    gc({ type: 'minor' });
    void session.post('HeapProfiler.stopSampling').then(({ profile }) => {
      process.stdout.write(`survivors ${JSON.stringify(profile)}\n`);
    });
  });
}
