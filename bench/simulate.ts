/**
 * POST /v1/positions with `simulate: true` against without, in the same run on the devnet: the two
 * bodies take turns call by call after a common warm-up (so neither JIT warm-up nor the box's drift
 * favours one), each call's CPU (this process: the in-process service and its client) and latency
 * booked to its mode, and the RPC requests it made counted around it (gateway_rpc_requests_total).
 * The gateway's CPU per call is that less the floor of the same client against bare node:http.
 */
import { createKey } from '../resolvers/apiKeys.js';
import { bareServer, post, sequentialAgent } from './lib.js';
import { counterTotal, type LatencySeries, machine, printLatencyTable, writeResult } from './measure.js';
import { startWriteBench, writeWallets } from './writeSetup.js';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 300);
const WARM_UP = 100;
const BASE_PORT = Number(process.env.BENCH_SIMULATE_PORT ?? 19266);
const MODES = ['without simulate', 'simulate=true'] as const;

const bench = await startWriteBench('simulate', BASE_PORT);
const { devnet, service } = bench;
const base = devnet.chains.find((c) => c.key === 'base')!;
const maker = writeWallets(base);
const series: LatencySeries[] = [];
let steps = 0;
try {
  const { key } = await createKey(service.services.db, {
    environment: 'live',
    prepareLimitPerMinute: 100_000,
  });
  // The maker has no allowance to Aqua: every answer is two approves and the ship.
  const body = (simulate: boolean) =>
    JSON.stringify({
      chain: 'base',
      wallet: maker.maker,
      deposits: [
        { symbol: 'USDC', amount: '1000000000' },
        { symbol: 'USDT', amount: '1000000000' },
      ],
      ...(simulate ? { simulate: true } : {}),
    });
  const payloads = MODES.map((_, k) => body(k === 1));
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
  const rpcCount = () =>
    counterTotal(service.services.metrics!.registry, 'gateway_rpc_requests_total', { client: 'gateway' });
  const calls = MODES.map(() => ({ cpuMs: 0, systemMs: 0, rpc: 0, ms: [] as number[] }));
  let sample = '';
  const one = async (k: number) => {
    const cpu = process.cpuUsage();
    const started = performance.now();
    const [status, text] = await post(`${service.url}/v1/positions`, payloads[k]!, headers);
    const ms = performance.now() - started;
    const used = process.cpuUsage(cpu);
    if (status !== 200) throw new Error(`prepare answered ${status}: ${text}`);
    if (k === 1 && !sample) {
      sample = text;
      steps = (JSON.parse(text) as { data: { simulation: { steps: unknown[] } } }).data.simulation.steps
        .length;
    }
    return { ms, cpuMs: (used.user + used.system) / 1000, systemMs: used.system / 1000 };
  };
  for (let i = 0; i < WARM_UP * MODES.length; i++) await one(i % MODES.length);
  for (let i = 0; i < REQUESTS * MODES.length; i++) {
    const k = i % MODES.length;
    // Read outside the measured window: the registry read is the bench's, not the call's.
    const rpcBefore = await rpcCount();
    const { ms, cpuMs, systemMs } = await one(k);
    calls[k]!.rpc += (await rpcCount()) - rpcBefore;
    calls[k]!.cpuMs += cpuMs;
    calls[k]!.systemMs += systemMs;
    calls[k]!.ms.push(ms);
  }
  MODES.forEach((mode, k) => {
    const c = calls[k]!;
    const ms = c.ms.sort((a, b) => a - b);
    const at = (p: number) =>
      Number(ms[Math.min(ms.length - 1, Math.floor((p / 100) * ms.length))]!.toFixed(2));
    series.push({
      name: `prepare ${mode}`,
      requests: ms.length,
      p50: at(50),
      p90: at(90),
      p99: at(99),
      mean: Number((ms.reduce((a, b) => a + b, 0) / ms.length).toFixed(2)),
      max: Number(ms.at(-1)!.toFixed(2)),
      cpuMsPerCall: Number((c.cpuMs / ms.length).toFixed(3)),
      systemMsPerCall: Number((c.systemMs / ms.length).toFixed(3)),
      rpcPerCall: Number((c.rpc / ms.length).toFixed(3)),
    });
  });
  // The floor: the same client and bytes against bare node:http, measured as the calls were.
  const bare = await bareServer(sample);
  let floorCpu = 0;
  const floorMs: number[] = [];
  for (let i = 0; i < WARM_UP + REQUESTS; i++) {
    const cpu = process.cpuUsage();
    const started = performance.now();
    await post(bare.url, payloads[1]!, headers);
    const ms = performance.now() - started;
    const used = process.cpuUsage(cpu);
    if (i < WARM_UP) continue;
    floorCpu += (used.user + used.system) / 1000;
    floorMs.push(ms);
  }
  bare.close();
  floorMs.sort((a, b) => a - b);
  series.push({
    name: 'floor: the same client against bare node:http (same bytes)',
    requests: REQUESTS,
    p50: Number(floorMs[Math.floor(floorMs.length / 2)]!.toFixed(2)),
    p90: Number(floorMs[Math.floor(floorMs.length * 0.9)]!.toFixed(2)),
    p99: Number(floorMs[Math.floor(floorMs.length * 0.99)]!.toFixed(2)),
    mean: Number((floorMs.reduce((a, b) => a + b, 0) / floorMs.length).toFixed(2)),
    max: Number(floorMs.at(-1)!.toFixed(2)),
    cpuMsPerCall: Number((floorCpu / REQUESTS).toFixed(3)),
  });
} finally {
  sequentialAgent.destroy();
  await bench.stop();
}

printLatencyTable(series);
const floor = series.at(-1)!.cpuMsPerCall ?? 0;
const figures = Object.fromEntries(
  MODES.map((mode) => {
    const s = series.find((x) => x.name === `prepare ${mode}`)!;
    return [
      mode,
      { rpcPerCall: s.rpcPerCall, gatewayCpuMsPerCall: Number(((s.cpuMsPerCall ?? 0) - floor).toFixed(3)) },
    ];
  }),
);
const [without, simulated] = MODES.map((m) => figures[m]!);
for (const [mode, f] of Object.entries(figures))
  console.log(
    `prepare ${mode}: ${f.rpcPerCall} RPC requests per call, gateway ≈ ${f.gatewayCpuMsPerCall} ms CPU per call`,
  );
const ratio = Number((simulated!.gatewayCpuMsPerCall / without!.gatewayCpuMsPerCall).toFixed(2));
console.log(`simulate=true (${steps} steps): ${ratio}× the gateway CPU of a prepare without it`);
const file = writeResult('simulate', {
  benchmark:
    'POST /v1/positions with simulate=true against without (the same run, calls taking turns), on the devnet',
  steps,
  figures,
  cpuRatio: ratio,
  series,
  machine: machine(),
  measuredAt: new Date().toISOString(),
});
console.log(`written ${file}`);
