/**
 * Latency of POST /v1/positions over HTTP on the devnet (three anvil chains), the
 * real service (express → persisted GraphQL mutation → one multicall eth_call → Postgres insert),
 * sequential requests from one node:http client (one kept-alive socket). Target: p50 ≤ 15 ms for a fresh prepare.
 *   npm run bench:prepare        (BENCH_REQUESTS=300, BENCH_PREPARE_PORT=19206)
 *   BENCH_PROFILE=<file.cpuprofile>  a CPU profile of the fresh-prepare series alone (node:inspector)
 * Writes bench/results/prepare.json.
 */
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import type { Address } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { erc20Abi } from '../chain/abi.js';
import { createKey } from '../resolvers/apiKeys.js';
import { bareServer, post, sequentialAgent, startProfile } from './lib.js';
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
import { startWriteBench } from './writeSetup.js';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 300);
const WARM_UP = 100;
const TARGET_P50_MS = 15;
/** Target: gateway CPU per prepare. */
const CPU_TARGET_MS = 1.5;
const BASE_PORT = Number(process.env.BENCH_PREPARE_PORT ?? 19206);
/** anvil's default mnemonic; index 9 is not used by the devnet. */
const wallet: Address = mnemonicToAccount('test test test test test test test test test test test junk', {
  addressIndex: 9,
}).address;

const bench = await startWriteBench('prepare', BASE_PORT);
const { devnet, service } = bench;
const series: LatencySeries[] = [];
let sample: unknown;
try {
  const { key } = await createKey(service.services.db, {
    environment: 'live',
    prepareLimitPerMinute: 100_000,
  });
  const body = (checkBalances: boolean) =>
    JSON.stringify({
      chain: 'base',
      wallet,
      deposits: [
        { symbol: 'USDC', amount: '1000000000' },
        { symbol: 'USDT', amount: '1000000000' },
      ],
      makerFeeBps: 30000,
      checkBalances,
      metadata: { source: 'bench' },
    });
  const call = async (payload: string, idempotencyKey?: string): Promise<number> => {
    const started = performance.now();
    const [status, text] = await post(`${service.url}/v1/positions`, payload, {
      'content-type': 'application/json',
      authorization: `Bearer ${key}`,
      ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
    });
    const ms = performance.now() - started;
    if (status !== 200) throw new Error(`prepare answered ${status}: ${text}`);
    sample ??= JSON.parse(text);
    return ms;
  };
  // RPC requests of the service's chain clients (not the indexer's: it is off).
  const rpcCount = () =>
    counterTotal(service.services.metrics!.registry, 'gateway_rpc_requests_total', { client: 'gateway' });
  const run = async (name: string, next: () => Promise<number>) => {
    series.push(await latencySeries(name, REQUESTS, WARM_UP, next, rpcCount));
  };

  const fresh = body(false);
  const profile = process.env.BENCH_PROFILE ? await startProfile() : undefined;
  await run('fresh prepare (2 allowances, 1 multicall, 1 insert)', () => call(fresh));
  if (profile)
    console.log(`profile of the fresh prepares: ${await profile.stop(process.env.BENCH_PROFILE!)}`);
  const checked = body(true);
  await run('fresh prepare + checkBalances + Idempotency-Key (4 reads, 1 multicall)', () =>
    call(checked, randomUUID()),
  );
  const replayKey = randomUUID();
  await call(checked, replayKey);
  await run('idempotent repeat (stored payload, no RPC)', () => call(checked, replayKey));

  // The client's own share of the CPU figure: the same client and body against bare node:http in this
  // process, answering the bytes of a prepare (client + a server that does nothing).
  const bare = await bareServer(JSON.stringify(sample));
  const bareUrl = bare.url;
  await run('floor: the same client against bare node:http in this process (same bytes)', async () => {
    const started = performance.now();
    await post(bareUrl, fresh, { 'content-type': 'application/json', authorization: `Bearer ${key}` });
    return performance.now() - started;
  });
  bare.close();

  // The two outside round trips of a fresh prepare, alone: what the box's anvil and Postgres cost now.
  const base = devnet.chains.find((c) => c.key === 'base')!;
  const timed = async (work: () => Promise<unknown>) => {
    const started = performance.now();
    await work();
    return performance.now() - started;
  };
  const client = service.services.clients.get('base');
  const allowance = (token: string) =>
    ({
      address: token as Address,
      abi: erc20Abi,
      functionName: 'allowance',
      args: [wallet, base.aqua as Address],
    }) as const;
  await run('floor: the multicall eth_call alone (viem → anvil)', () =>
    timed(() =>
      client.multicall({
        contracts: [allowance(base.tokens[0]!.address), allowance(base.tokens[1]!.address)],
        allowFailure: true,
        batchSize: 0,
      }),
    ),
  );
  await service.services.db.query(
    'CREATE TABLE bench_commit (id serial PRIMARY KEY, payload jsonb NOT NULL)',
  );
  const row = JSON.stringify(sample);
  await run('floor: one INSERT and its commit alone (Postgres fsync)', () =>
    timed(() => service.services.db.query('INSERT INTO bench_commit (payload) VALUES ($1)', [row])),
  );
} finally {
  sequentialAgent.destroy();
  await bench.stop();
}

printLatencyTable(series);
const headline = series[0]!;
const pass = headline.p50 <= TARGET_P50_MS;
console.log(
  `fresh prepare p50 ${headline.p50} ms, p99 ${headline.p99} ms (target p50 ≤ ${TARGET_P50_MS} ms) ${pass ? 'MET' : 'MISSED'}`,
);
// Target: ≤ 1.5 ms of gateway CPU per prepare and one RPC round trip. This process holds the service
// and its client: its CPU per call less the client's (the floor series) is the gateway's.
const clientFloor = series.find((s) => s.name.startsWith('floor: the same client'))?.cpuMsPerCall ?? 0;
const gatewayCpu = Number(((headline.cpuMsPerCall ?? 0) - clientFloor).toFixed(3));
const cpu = {
  processMsPerCall: headline.cpuMsPerCall,
  clientAndBareServerMsPerCall: clientFloor,
  gatewayMsPerCall: gatewayCpu,
  rpcPerCall: headline.rpcPerCall,
  target: `<= ${CPU_TARGET_MS} ms gateway CPU, 1 RPC request per call`,
  met: gatewayCpu <= CPU_TARGET_MS && headline.rpcPerCall === 1,
};
console.log(
  `fresh prepare CPU per call: ${headline.cpuMsPerCall} ms in this process, ${clientFloor} ms of it the client's (floor), gateway ≈ ${gatewayCpu} ms; ${headline.rpcPerCall} RPC request(s) per call (target ≤ ${CPU_TARGET_MS} ms, 1) ${cpu.met ? 'MET' : 'MISSED'}`,
);
// The whole process (service, its client, viem): an upper bound on the gateway's own.
const rss = rssOf();
console.log(
  `peak RSS of this process (service + client): ${rss.peakRssMb} MB (target ≤ ${RSS_TARGET_MB} MB)`,
);
const file = writeResult('prepare', {
  benchmark: 'POST /v1/positions over HTTP on the devnet, sequential, one client, in-process service',
  series,
  targetP50Ms: TARGET_P50_MS,
  pass,
  cpu,
  rss: { ...rss, scope: 'the bench process: in-process service and its client' },
  sampleResponse: sample,
  machine: machine(),
  measuredAt: new Date().toISOString(),
});
console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}; written ${file}`,
);
