import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import type { LoadResult } from './lib.js';
import { ROOT } from './processes.js';

/**
 * What the benches measure and how they report it: CPU and resident memory of a process (/proc), the
 * machine, medians of interleaved rounds, tables, result files, and series of sequential calls.
 * (Starting servers: bench/processes.ts; generating load: bench/lib.ts.)
 */
/** CPU milliseconds (user + system) a process has used so far, from /proc (Linux); 0 once it is gone. */
export function cpuMs(pid: number, only?: 'user' | 'system'): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const user = only === 'system' ? 0 : Number(fields[11]);
    const system = only === 'user' ? 0 : Number(fields[12]);
    return ((user + system) * 1000) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/** CPU milliseconds (user + system) this process has used since `start` (a `process.cpuUsage()`). */
export function ownCpuMsSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

/** Busy and total jiffies of the whole machine (/proc/stat's first line). */
export function machineJiffies(): { busy: number; all: number } {
  const [user, nice, system, idle, iowait, irq, softirq, steal] = readFileSync('/proc/stat', 'utf8')
    .split('\n', 1)[0]!
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number) as number[];
  const busy = user! + nice! + system! + irq! + softirq! + steal!;
  return { busy, all: busy + idle! + iowait! };
}

/** USER_HZ: 100 on every Linux this runs on (`getconf CLK_TCK`). */
const CLOCK_TICKS = 100;

/** Resident memory of a process in MB, from /proc/<pid>/status (Linux): now and its peak (VmHWM). */
export interface Rss {
  rssMb: number;
  peakRssMb: number;
}

/**
 * `rssMb` (VmRSS) and `peakRssMb` (VmHWM, the high-water mark since the process started) of `pid`;
 * zeros once it is gone. Target: the gateway's RSS under a bench's load ≤ 300 MB; every bench reads
 * its gateway's peak after the load and reports it beside the figures.
 */
export function rssOf(pid: number | undefined = process.pid): Rss {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
    return { rssMb: Math.round(kb('VmRSS') / 1024), peakRssMb: Math.round(kb('VmHWM') / 1024) };
  } catch {
    return { rssMb: 0, peakRssMb: 0 };
  }
}

/** The bound on the gateway's resident memory under a bench's load. */
export const RSS_TARGET_MB = 300;

/**
 * What a run was measured on. The box is shared (2 cores): the load average when the run ended says how
 * much its figures are worth.
 */
export function machine(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    cpus: cpus().length,
    model: cpus()[0]?.model,
    node: process.version,
    loadAverage: loadavg().map((l) => Number(l.toFixed(2))),
    ...extra,
  };
}

/** The nearest-rank `p`th percentile of values sorted ascending. */
export function percentileOfSorted(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** One row per target from interleaved rounds: the median of each figure, failures summed. */
export function medianRow(name: string, results: LoadResult[]): LoadResult {
  return {
    name,
    requestsPerSec: Math.round(median(results.map((r) => r.requestsPerSec))),
    p50: median(results.map((r) => r.p50)),
    p90: median(results.map((r) => r.p90)),
    p99: median(results.map((r) => r.p99)),
    max: median(results.map((r) => r.max)),
    non2xx: results.reduce((s, r) => s + r.non2xx, 0),
    errors: results.reduce((s, r) => s + r.errors, 0),
    ...(results[0]?.cpuMsPerRequest
      ? {
          cpuMsPerRequest: Object.fromEntries(
            Object.keys(results[0].cpuMsPerRequest).map((k) => [
              k,
              Number(median(results.map((r) => r.cpuMsPerRequest?.[k] ?? 0)).toFixed(3)),
            ]),
          ),
        }
      : {}),
    ...(results[0]?.rpcPerRequest !== undefined
      ? { rpcPerRequest: Number(median(results.map((r) => r.rpcPerRequest ?? 0)).toFixed(3)) }
      : {}),
  };
}

export function printTable(rows: LoadResult[], baseline: Record<string, number>): void {
  const table = rows.map((r) => ({
    target: r.name,
    'req/s': r.requestsPerSec,
    'p50 ms': r.p50,
    'p99 ms': r.p99,
    non2xx: r.non2xx,
    errors: r.errors,
    ...Object.fromEntries(
      Object.entries(baseline).map(([label, rps]) => [
        `× ${label}`,
        Number((r.requestsPerSec / rps).toFixed(2)),
      ]),
    ),
  }));
  console.table(table);
}

export function writeResult(name: string, data: unknown): string {
  const file = join(ROOT, 'bench', 'results', `${name}.json`);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);
  return file;
}

/** Latency figures of one series of sequential calls (bench/prepare.ts, bench/swap.ts). */
export interface LatencySeries {
  name: string;
  requests: number;
  p50: number;
  p90: number;
  p99: number;
  mean: number;
  max: number;
  /**
   * CPU milliseconds (user + system) of the bench's own process per call: the in-process service and
   * the client that called it (an upper bound on the gateway's CPU; anvil and Postgres run apart).
   */
  cpuMsPerCall?: number;
  /** The kernel's share of `cpuMsPerCall` (system time: sockets to Postgres, the RPC node, the client). */
  systemMsPerCall?: number;
  /** Requests the service's chain clients sent to RPC nodes per call (gateway_rpc_requests_total). */
  rpcPerCall?: number;
}

/** The sum of a prom-client counter's values whose labels include `labels` (0 when absent). */
export async function counterTotal(
  registry: { getSingleMetric(name: string): { get(): unknown } | undefined },
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const metric = registry.getSingleMetric(name);
  if (!metric) return 0;
  const { values } = (await metric.get()) as {
    values: Array<{ value: number; labels: Record<string, string | number> }>;
  };
  return values
    .filter((v) => Object.entries(labels).every(([k, want]) => String(v.labels[k]) === want))
    .reduce((sum, v) => sum + v.value, 0);
}

/**
 * Runs `next` `warmUp` times, then `requests` times measured: latency of each call, this process's CPU
 * per measured call and, with `rpcCount`, RPC requests per measured call.
 */
export async function latencySeries(
  name: string,
  requests: number,
  warmUp: number,
  next: (i: number) => Promise<number>,
  rpcCount?: () => Promise<number>,
): Promise<LatencySeries> {
  let i = 0;
  for (; i < warmUp; i++) await next(i);
  const times: number[] = [];
  const rpcBefore = rpcCount ? await rpcCount() : 0;
  const cpu = process.cpuUsage();
  for (; i < warmUp + requests; i++) times.push(await next(i));
  const used = process.cpuUsage(cpu);
  const rpcAfter = rpcCount ? await rpcCount() : 0;
  times.sort((a, b) => a - b);
  const at = (p: number) =>
    times[Math.min(times.length - 1, Math.max(0, Math.ceil((p / 100) * times.length) - 1))]!;
  const round = (ms: number) => Math.round(ms * 100) / 100;
  return {
    name,
    requests,
    p50: round(at(50)),
    p90: round(at(90)),
    p99: round(at(99)),
    mean: round(times.reduce((a, b) => a + b, 0) / times.length),
    max: round(times.at(-1)!),
    cpuMsPerCall: Number(((used.user + used.system) / 1000 / requests).toFixed(3)),
    systemMsPerCall: Number((used.system / 1000 / requests).toFixed(3)),
    ...(rpcCount ? { rpcPerCall: Number(((rpcAfter - rpcBefore) / requests).toFixed(2)) } : {}),
  };
}

/**
 * Calls taking turns (0, 1, …, 0, 1, …) after a common warm-up, each call's latency, this process's CPU
 * and, with `rpcCount`, RPC requests (read outside the measured window) booked to its name: neither the
 * JIT's warm-up nor the box's drift favours one (series run one after another drifted 2x).
 */
export async function interleavedSeries(
  names: readonly string[],
  requests: number,
  warmUp: number,
  call: (k: number) => Promise<void>,
  rpcCount?: () => Promise<number>,
): Promise<LatencySeries[]> {
  for (let i = 0; i < warmUp * names.length; i++) await call(i % names.length);
  const booked = names.map(() => ({ ms: [] as number[], cpuMs: 0, systemMs: 0, rpc: 0 }));
  for (let i = 0; i < requests * names.length; i++) {
    const b = booked[i % names.length]!;
    const rpcBefore = rpcCount ? await rpcCount() : 0;
    const cpu = process.cpuUsage();
    const started = performance.now();
    await call(i % names.length);
    b.ms.push(performance.now() - started);
    const used = process.cpuUsage(cpu);
    b.cpuMs += (used.user + used.system) / 1000;
    b.systemMs += used.system / 1000;
    if (rpcCount) b.rpc += (await rpcCount()) - rpcBefore;
  }
  const round = (ms: number) => Math.round(ms * 100) / 100;
  return names.map((name, k) => {
    const b = booked[k]!;
    const times = b.ms.sort((x, y) => x - y);
    const at = (p: number) =>
      times[Math.min(times.length - 1, Math.max(0, Math.ceil((p / 100) * times.length) - 1))]!;
    return {
      name,
      requests,
      p50: round(at(50)),
      p90: round(at(90)),
      p99: round(at(99)),
      mean: round(times.reduce((x, y) => x + y, 0) / times.length),
      max: round(times.at(-1)!),
      cpuMsPerCall: Number((b.cpuMs / requests).toFixed(3)),
      systemMsPerCall: Number((b.systemMs / requests).toFixed(3)),
      ...(rpcCount ? { rpcPerCall: Number((b.rpc / requests).toFixed(3)) } : {}),
    };
  });
}

export function printLatencyTable(series: LatencySeries[]): void {
  console.table(
    series.map((s) => ({
      series: s.name,
      n: s.requests,
      'p50 ms': s.p50,
      'p90 ms': s.p90,
      'p99 ms': s.p99,
      'mean ms': s.mean,
      'max ms': s.max,
      'CPU ms/call': s.cpuMsPerCall ?? '—',
      'of it system': s.systemMsPerCall ?? '—',
      'RPC/call': s.rpcPerCall ?? '—',
    })),
  );
}

/** A number V8 prints in a `--trace-gc-nvp` line (`name=value`): 0 when the line has none. */
export function nvpField(line: string, name: string): number {
  return Number(new RegExp(`\\b${name}=([\\d.]+)`).exec(line)?.[1] ?? 0);
}
