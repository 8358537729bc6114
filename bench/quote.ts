/**
 * Latency of GET /api/quote over HTTP on the devnet, sequential, against the raw
 * `eth_call` of the router's `quote` alone, measured in the same run (interleaved, same process, same
 * keep-alive fetch). Target: ≤ 2 ms added at p50 (tightened from 3 ms). Each request comes from its own
 * client (TRUST_PROXY=1, distinct X-Forwarded-For) because the quote bucket is 60/min per client.
 *   npm run bench:quote            (BENCH_QUOTE_N=400 requests of each kind by default)
 * Writes bench/results/quote.json.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import type { Address, Hex } from 'viem';
import { quoteCalldata } from '../chain/calldata.js';
import { nodeHttpFetch } from '../chain/nodeFetch.js';
import { decodeStrategy } from '../chain/order.js';
import { simulationCalldata } from '../chain/simulate.js';
import { exactInTakerTraits } from '../chain/takerTraits.js';
import { startDevnet } from '../devnet/devnet.js';
import { startIndexer } from '../indexer/index.js';
import { createContext } from '../resolvers/context.js';
import { quote } from '../resolvers/quote.js';
import { PersistedOperations } from '../rest/execute.js';
import { QuoteDocument } from '../rest/generated/graphql.js';
import { schema } from '../schema/index.js';
import { query } from '../store/db.js';
import { startTestService } from '../test/helpers/service.js';
import { ownCpuMsSince, percentileOfSorted, RSS_TARGET_MB, rssOf, writeResult } from './measure.js';

const N = Number(process.env.BENCH_QUOTE_N ?? 400);
/**
 * Every measured request (the raw eth_call and the HTTP quote alike) uses the same client, the one the
 * service itself uses towards the RPC node (node:http keep-alive): the difference is the service's.
 * BENCH_CLIENT=fetch uses Node's global fetch for all of them instead.
 */
const client = process.env.BENCH_CLIENT === 'fetch' ? fetch : nodeHttpFetch;
const WARMUP = 50;
const TARGET_ADDED_P50_MS = 2;
const BASE_PORT = Number(process.env.BENCH_QUOTE_PORT ?? 19300);
const AMOUNT = 1_000_000_000n; // 1,000 tokens of 6 decimals

const percentile = percentileOfSorted;

function summary(name: string, samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const round = (v: number) => Number(v.toFixed(3));
  return {
    name,
    n: samples.length,
    p50: round(percentile(sorted, 50)),
    p90: round(percentile(sorted, 90)),
    p99: round(percentile(sorted, 99)),
    mean: round(samples.reduce((s, v) => s + v, 0) / samples.length),
    min: round(sorted[0]!),
    max: round(sorted[sorted.length - 1]!),
  };
}

async function rpc(url: string, body: unknown): Promise<void> {
  const res = await client(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { error?: unknown; result?: unknown };
  if (json.error !== undefined || typeof json.result !== 'string')
    throw new Error(`rpc failed: ${JSON.stringify(json)}`);
}

const loadAtStart = loadavg();
const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-quote-'));
// The activity bot stays idle: the pools must not move and it must not compete for the two cores.
const devnet = await startDevnet({ basePort: BASE_PORT, dataDir, activityMs: 2_000_000_000 });
// The indexer runs once (syncNow), not in the background during the measurement.
const svc = await startTestService({ chains: devnet.chains, env: { TRUST_PROXY: '1', INDEXER: 'off' } });
try {
  const base = devnet.chains.find((c) => c.key === 'base')!;
  const indexer = await startIndexer(svc.services, { background: false });
  await indexer.syncNow();
  await indexer.stop();
  const { rows } = await query<{ strategy_hash: string; strategy: string; token_a: string; token_b: string }>(
    svc.services.db,
    `SELECT strategy_hash, strategy, token_a, token_b FROM strategies
      WHERE chain_key = 'base' AND app = $1 AND pair_key = 'USDC/USDT' AND status = 'active'
      ORDER BY strategy_hash LIMIT 1`,
    [base.router.toLowerCase()],
  );
  const row = rows[0];
  if (!row) throw new Error('no open USDC/USDT strategy on the devnet');
  const order = decodeStrategy(row.strategy as Hex)!;
  const params = {
    order,
    tokenIn: row.token_a as Address,
    tokenOut: row.token_b as Address,
    amount: AMOUNT,
    takerTraits: exactInTakerTraits(),
    strategyHash: row.strategy_hash as Hex,
  };
  const rawCall = {
    jsonrpc: '2.0',
    id: 1,
    method: 'eth_call',
    params: [{ to: base.router, data: quoteCalldata(params) }, 'latest'],
  };
  const pinnedCall = {
    jsonrpc: '2.0',
    id: 1,
    method: 'eth_call',
    params: [{ to: base.multicall, data: simulationCalldata(base, params) }, 'latest'],
  };
  const quoteUrl = `${svc.url}/api/quote?hash=${row.strategy_hash}&chain=base&amount=${AMOUNT}&direction=aToB`;
  let caller = 0;
  const httpQuote = async () => {
    caller++;
    const res = await client(quoteUrl, {
      headers: { 'x-forwarded-for': `10.${(caller >> 16) & 255}.${(caller >> 8) & 255}.${caller & 255}` },
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`quote answered ${res.status}: ${text}`);
    return text;
  };

  const sample = JSON.parse(await httpQuote()) as unknown;
  const floor = async () => {
    caller++;
    const res = await client(`${svc.url}/api/no-such-path`, {
      headers: { 'x-forwarded-for': `11.${(caller >> 16) & 255}.${(caller >> 8) & 255}.${caller & 255}` },
    });
    await res.text();
  };
  const inProcess = () =>
    quote(createContext(svc.services, 'bench'), {
      hash: row.strategy_hash,
      chain: 'base',
      amount: AMOUNT.toString(),
      direction: 'aToB',
    });
  const operations = new PersistedOperations(schema);
  const viaGraphql = () =>
    operations.run(
      QuoteDocument,
      { hash: row.strategy_hash, chain: 'base', amount: AMOUNT.toString(), direction: 'aToB' },
      createContext(svc.services, 'bench'),
    );
  const kinds: Array<[string, () => Promise<unknown>]> = [
    ['raw eth_call router.quote', () => rpc(base.rpcUrl, rawCall)],
    ['eth_call pinned (multicall: block + quote + funding)', () => rpc(base.rpcUrl, pinnedCall)],
    ['quote resolver in-process (no HTTP, no GraphQL)', inProcess],
    ['persisted Quote operation in-process (GraphQL, no HTTP)', viaGraphql],
    ['GET unknown path (404: HTTP + conventions floor)', floor],
    ['GET /api/quote (HTTP, end to end)', httpQuote],
  ];
  for (let i = 0; i < WARMUP; i++) for (const [, run] of kinds) await run();
  const samples = new Map<string, number[]>(kinds.map(([name]) => [name, []]));
  /** CPU of this process (client, service and their RPC client) per call: independent of contention. */
  const cpu = new Map<string, number>(kinds.map(([name]) => [name, 0]));
  // Interleaved: every kind sees the same machine conditions.
  for (let i = 0; i < N; i++) {
    for (const [name, run] of kinds) {
      const cpuStart = process.cpuUsage();
      const started = performance.now();
      await run();
      samples.get(name)!.push(performance.now() - started);
      cpu.set(name, cpu.get(name)! + ownCpuMsSince(cpuStart));
    }
  }
  const results = kinds.map(([name]) => ({
    ...summary(name, samples.get(name)!),
    cpuMsPerCall: Number((cpu.get(name)! / N).toFixed(3)),
  }));
  const byName = (prefix: string) => results.find((r) => r.name.startsWith(prefix))!;
  const raw = byName('raw');
  const pinned = byName('eth_call pinned');
  const http = byName('GET /api/quote');
  const addedP50 = Number((http.p50 - raw.p50).toFixed(3));
  const addedP99 = Number((http.p99 - raw.p99).toFixed(3));
  // Paired: the median of (quote_i − raw_i) over the interleaved iterations, robust to drift.
  const rawSamples = samples.get(raw.name)!;
  const pairedMedian = Number(
    percentile(
      samples
        .get(http.name)!
        .map((v, i) => v - rawSamples[i]!)
        .sort((a, b) => a - b),
      50,
    ).toFixed(3),
  );

  console.log(`quote latency on the devnet, ${N} sequential requests of each kind (ms)`);
  console.table(Object.fromEntries(results.map(({ name, ...rest }) => [name, rest])));
  console.log(
    `added by the service at p50: ${addedP50} ms (target ≤ ${TARGET_ADDED_P50_MS} ms) ${addedP50 <= TARGET_ADDED_P50_MS ? 'MET' : 'MISSED'}`,
  );
  const cpuAdded = Number((http.cpuMsPerCall - raw.cpuMsPerCall).toFixed(3));
  console.log(`added at p99: ${addedP99} ms; paired median of (quote − raw): ${pairedMedian} ms`);
  console.log(
    `CPU of this process per call: quote ${http.cpuMsPerCall} ms vs raw ${raw.cpuMsPerCall} ms (+${cpuAdded} ms)`,
  );
  console.log(
    `pinned multicall vs raw at p50: ${(pinned.p50 - raw.p50).toFixed(3)} ms; load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  // The whole process (service, its client, viem): an upper bound on the gateway's own resident memory.
  const rss = rssOf();
  console.log(
    `peak RSS of this process (service + client): ${rss.peakRssMb} MB (target ≤ ${RSS_TARGET_MB} MB)`,
  );
  const file = writeResult('quote', {
    benchmark: 'GET /api/quote over HTTP vs the raw eth_call of router.quote, sequential, devnet (anvil)',
    requests: N,
    client: process.env.BENCH_CLIENT === 'fetch' ? 'global fetch' : 'node:http keep-alive (nodeHttpFetch)',
    amount: AMOUNT.toString(),
    strategyHash: row.strategy_hash,
    results,
    addedP50Ms: addedP50,
    addedP99Ms: addedP99,
    pairedMedianAddedMs: pairedMedian,
    cpuAddedMsPerQuote: cpuAdded,
    targetAddedP50Ms: TARGET_ADDED_P50_MS,
    pass: addedP50 <= TARGET_ADDED_P50_MS,
    rss: { ...rss, scope: 'the bench process: in-process service and its client' },
    sampleBody: sample,
    machine: {
      node: process.version,
      cpus: cpus().length,
      loadAverageAtStart: loadAtStart,
      loadAverageAtEnd: loadavg(),
    },
    measuredAt: new Date().toISOString(),
  });
  console.log(`written ${file}`);
} finally {
  await svc.stop();
  await devnet.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
