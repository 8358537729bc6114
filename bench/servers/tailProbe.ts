/**
 * What a benched gateway measures of itself for `npm run bench:tail` (bench/tail.ts), installed by
 * bench/servers/catalogue.ts when BENCH_TAIL_PROBE=1:
 *   - its own time per request, from the server's `request` event to the response's `finish` (the rest
 *     of a client's latency passed before the request was read, or on the way back);
 *   - the stalls of its event loop: a 1 ms timer that fired more than STALL_MS late;
 *   - its garbage collections (perf_hooks `gc` entries): when, how long, and of which kind.
 * On SIGUSR2 it prints one line, `tail-probe <json>`, and starts counting afresh.
 */
import type { Server } from 'node:http';
import { constants, createHistogram, PerformanceObserver, performance } from 'node:perf_hooks';

const STALL_MS = 6;

export interface TailProbeReport {
  requests: number;
  /** Request event to finish, ms. */
  serverP50Ms: number;
  serverP99Ms: number;
  serverMaxMs: number;
  /** [start, length] of each stall, ms since the gateway started. */
  stalls: Array<[number, number]>;
  /** [start, duration, kind] of each collection, ms. */
  collections: Array<[number, number, 'minor' | 'major' | 'incremental' | 'weak callbacks' | 'other']>;
}

const KINDS = new Map<number, TailProbeReport['collections'][number][2]>([
  [constants.NODE_PERFORMANCE_GC_MINOR, 'minor'],
  [constants.NODE_PERFORMANCE_GC_MAJOR, 'major'],
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL, 'incremental'],
  [constants.NODE_PERFORMANCE_GC_WEAKCB, 'weak callbacks'],
]);

export function installTailProbe(server: Server): void {
  const served = createHistogram();
  let stalls: TailProbeReport['stalls'] = [];
  let collections: TailProbeReport['collections'] = [];
  // First among the listeners: the time starts before the service's own work on the request.
  server.prependListener('request', (_req, res) => {
    const started = performance.now();
    res.once('finish', () => served.record(Math.max(1, Math.round((performance.now() - started) * 1000))));
  });
  let last = performance.now();
  setInterval(() => {
    const now = performance.now();
    if (now - last > 1 + STALL_MS) stalls.push([Math.round(last), Number((now - last).toFixed(1))]);
    last = now;
  }, 1).unref();
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      // node 20 puts a collection's kind in `detail` (its PerformanceEntry typings do not name it).
      const kind = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind ?? -1;
      collections.push([
        Math.round(entry.startTime),
        Number(entry.duration.toFixed(1)),
        KINDS.get(kind) ?? 'other',
      ]);
    }
  }).observe({ entryTypes: ['gc'] });
  const ms = (us: number) => Number((us / 1000).toFixed(2));
  process.on('SIGUSR2', () => {
    const report: TailProbeReport = {
      requests: served.count,
      serverP50Ms: ms(served.percentile(50)),
      serverP99Ms: ms(served.percentile(99)),
      serverMaxMs: ms(served.max),
      stalls,
      collections,
    };
    process.stdout.write(`tail-probe ${JSON.stringify(report)}\n`);
    served.reset();
    stalls = [];
    collections = [];
  });
}
