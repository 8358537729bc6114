/**
 * POST /v1/positions with `simulate: true` against without, in the same run on the devnet: the two
 * bodies take turns call by call after a common warm-up (so neither JIT warm-up nor the box's drift
 * favours one), each call's CPU (this process: the in-process service and its client) and latency
 * booked to its mode, and the RPC requests it made counted around it (gateway_rpc_requests_total).
 * The gateway's CPU per call is that less the floor of the same client against bare node:http.
 */
import { createKey } from '../resolvers/apiKeys.js';
import { bareServer, post, sequentialAgent } from './lib.js';
import {
  counterTotal,
  interleavedSeries,
  type LatencySeries,
  latencySeries,
  machine,
  printLatencyTable,
  writeResult,
} from './measure.js';
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
  let sample = '';
  const one = async (k: number) => {
    const [status, text] = await post(`${service.url}/v1/positions`, payloads[k]!, headers);
    if (status !== 200) throw new Error(`prepare answered ${status}: ${text}`);
    if (k === 1 && !sample) {
      sample = text;
      steps = (JSON.parse(text) as { data: { simulation: { steps: unknown[] } } }).data.simulation.steps
        .length;
    }
  };
  series.push(
    ...(await interleavedSeries(
      MODES.map((mode) => `prepare ${mode}`),
      REQUESTS,
      WARM_UP,
      one,
      rpcCount,
    )),
  );
  // The floor: the same client and bytes against bare node:http, measured as the calls were.
  const bare = await bareServer(sample);
  series.push(
    await latencySeries(
      'floor: the same client against bare node:http (same bytes)',
      REQUESTS,
      WARM_UP,
      async () => {
        const started = performance.now();
        await post(bare.url, payloads[1]!, headers);
        return performance.now() - started;
      },
    ),
  );
  bare.close();
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
