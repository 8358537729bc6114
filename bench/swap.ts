import { loadavg } from 'node:os';
import { startIndexer } from '../indexer/index.js';
import { createKey } from '../resolvers/apiKeys.js';
import { bareServer, post, sequentialAgent } from './lib.js';
import {
  counterTotal,
  type LatencySeries,
  latencySeries,
  machine,
  printLatencyTable,
  RSS_TARGET_MB,
  rssOf,
  writeResult,
} from './measure.js';
import { openStrategyHash, startWriteBench, swapBody as swapBodyOf, writeWallets } from './writeSetup.js';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 300);
const WARM_UP = 12;
const PER_KEY = 6;
/** Target: gateway CPU per swap and per dock. */
const CPU_TARGET_MS = 1.5;
const CLIENT_FLOOR = 'floor: the same client against bare node:http in this process (same bytes)';
const BASE_PORT = Number(process.env.BENCH_SWAP_PORT ?? 19406);

const keysFor = (n: number) => Math.ceil(n / PER_KEY);

const bench = await startWriteBench('swap', BASE_PORT);
const { devnet, service } = bench;
const series: LatencySeries[] = [];
const samples: Record<string, unknown> = {};
try {
  const base = devnet.chains.find((c) => c.key === 'base')!;
  const indexer = await startIndexer(service.services, { background: false });
  await indexer.syncNow();
  const hash = await openStrategyHash(service.services.db, base);
  if (!hash) throw new Error('no open USDC/USDT strategy on the devnet');
  const newKey = async () =>
    (await createKey(service.services.db, { environment: 'live', prepareLimitPerMinute: 100_000 })).key;

  // One shipped position per dock key, shipped by the maker wallet as an integrator would.
  const wallets = writeWallets(base);
  await wallets.fundTaker();
  const dockKeys: { key: string; position: string }[] = [];
  for (let i = 0; i < keysFor(WARM_UP + REQUESTS); i++) {
    const key = await newKey();
    dockKeys.push({ key, position: await wallets.shipPosition(service.url, key) });
  }
  await indexer.syncNow();
  await indexer.stop();
  const swapKeys = await Promise.all(Array.from({ length: keysFor(WARM_UP + REQUESTS) }, newKey));

  // RPC requests of the service's chain clients (the indexer is stopped by now).
  const rpcCount = () =>
    counterTotal(service.services.metrics!.registry, 'gateway_rpc_requests_total', { client: 'gateway' });
  const run = async (name: string, next: (i: number) => Promise<number>) => {
    series.push(await latencySeries(name, REQUESTS, WARM_UP, next, rpcCount));
  };
  const timed = async (label: string, url: string, body: string | null, key: string) => {
    const started = performance.now();
    const [status, text] = await post(url, body, {
      ...(body ? { 'content-type': 'application/json' } : {}),
      authorization: `Bearer ${key}`,
    });
    const ms = performance.now() - started;
    if (status !== 200) throw new Error(`${label} answered ${status}: ${text}`);
    samples[label] ??= JSON.parse(text);
    return ms;
  };
  const swapBody = swapBodyOf(hash);
  await run('POST /v1/swaps (1 eth_call: quote + funding + taker)', (i) =>
    timed('swap', `${service.url}/v1/swaps`, swapBody, swapKeys[Math.floor(i / PER_KEY)]!),
  );
  await run('POST /v1/positions/{id}/dock (1 eth_call: rawBalances)', (i) => {
    const { key, position } = dockKeys[Math.floor(i / PER_KEY)]!;
    return timed('dock', `${service.url}/v1/positions/${position}/dock`, null, key);
  });
  // The client's share of the CPU figures: the same client and a swap's bytes against bare node:http in
  // this process (client + a server that does nothing).
  const bare = await bareServer(JSON.stringify(samples.swap));
  const bareUrl = bare.url;
  await run(CLIENT_FLOOR, async () => {
    const started = performance.now();
    await post(bareUrl, swapBody, { 'content-type': 'application/json', authorization: 'Bearer x' });
    return performance.now() - started;
  });
  bare.close();
} finally {
  sequentialAgent.destroy();
  await bench.stop();
}

printLatencyTable(series);
// Target: ≤ 1.5 ms of gateway CPU and one RPC round trip per swap and per dock. This process holds the
// service and its client: its CPU per call less the client's (the floor series) is the gateway's.
const clientFloor = series.find((s) => s.name === CLIENT_FLOOR)?.cpuMsPerCall ?? 0;
const cpu = series
  .filter((s) => s.name !== CLIENT_FLOOR)
  .map((s) => {
    const gatewayMsPerCall = Number(((s.cpuMsPerCall ?? 0) - clientFloor).toFixed(3));
    return {
      name: s.name,
      processMsPerCall: s.cpuMsPerCall,
      clientAndBareServerMsPerCall: clientFloor,
      gatewayMsPerCall,
      rpcPerCall: s.rpcPerCall,
      met: gatewayMsPerCall <= CPU_TARGET_MS && s.rpcPerCall === 1,
    };
  });
for (const c of cpu)
  console.log(
    `${c.name}: CPU per call ${c.processMsPerCall} ms in this process, ${clientFloor} ms the client's, gateway ≈ ${c.gatewayMsPerCall} ms; ${c.rpcPerCall} RPC request(s) per call (target ≤ ${CPU_TARGET_MS} ms, 1) ${c.met ? 'MET' : 'MISSED'}`,
  );
const rss = rssOf();
console.log(
  `peak RSS of this process (service + client): ${rss.peakRssMb} MB (target ≤ ${RSS_TARGET_MB} MB)`,
);
const file = writeResult('swap', {
  benchmark:
    'POST /v1/swaps and POST /v1/positions/{id}/dock over HTTP on the devnet, sequential, one client',
  series,
  cpu,
  cpuTarget: `<= ${CPU_TARGET_MS} ms gateway CPU, 1 RPC request per call`,
  rss: { ...rss, scope: 'the bench process: in-process service and its client' },
  samples,
  machine: machine(),
  measuredAt: new Date().toISOString(),
});
console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}; written ${file}`,
);
