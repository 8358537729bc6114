/**
 * Issue 17's figures: latency of POST /v1/swaps and POST /v1/positions/{id}/dock over HTTP on the devnet
 * (three anvil chains), the real service (express → persisted GraphQL mutation → one eth_call → answer),
 * sequential requests from one node:http client (one kept-alive socket). Both paths count in the
 * per-key `write` bucket (6 per 60 s, SPEC §8), so requests rotate over keys, six per key; each dock key
 * owns one shipped position (prepared through the API and shipped by the maker wallet).
 *   npm run bench:swap        (BENCH_REQUESTS=120, BENCH_SWAP_PORT=19406)
 * Writes bench/results/swap.json.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { type Address, createWalletClient, encodeFunctionData, type Hex, http as viemHttp } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { erc20Abi } from '../chain/abi.js';
import { createChainClient, viemChainOf } from '../chain/clients.js';
import { startDevnet } from '../devnet/devnet.js';
import { startIndexer } from '../indexer/index.js';
import { loadConfig } from '../lib/config.js';
import { createLogger } from '../lib/logger.js';
import { createKey } from '../resolvers/apiKeys.js';
import { startService } from '../service.js';
import { query } from '../store/db.js';
import { createTestDatabase } from '../test/helpers/postgres.js';
import { type LatencySeries, machine, printLatencyTable, writeResult } from './lib.js';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 120);
const WARM_UP = 12;
const PER_KEY = 6;
const BASE_PORT = Number(process.env.BENCH_SWAP_PORT ?? 19406);
const MNEMONIC = 'test test test test test test test test test test test junk';
/** Index 9 is not used by the devnet: the maker of the docked positions; index 8 the taker. */
const maker = mnemonicToAccount(MNEMONIC, { addressIndex: 9 });
const taker = mnemonicToAccount(MNEMONIC, { addressIndex: 8 }).address;

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
function post(url: string, body: string | null, headers: Record<string, string>): Promise<[number, string]> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve([res.statusCode ?? 0, Buffer.concat(chunks).toString('utf8')]));
    });
    req.on('error', reject);
    req.end(body ?? undefined);
  });
}

function percentile(sorted: number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}
const round = (ms: number) => Math.round(ms * 100) / 100;
const keysFor = (n: number) => Math.ceil(n / PER_KEY);

const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-swap-'));
const database = await createTestDatabase();
const devnet = await startDevnet({ basePort: BASE_PORT, dataDir, activityMs: 2_000_000_000 });
const config = loadConfig({
  PORT: '0',
  HOST: '127.0.0.1',
  LOG_LEVEL: 'silent',
  INDEXER: 'off',
  DATABASE_URL: database.url,
  INTERNAL_TOKEN: 'bench-internal-token-0123456789',
});
const service = await startService(config, { chains: devnet.chains, logger: createLogger('silent') });
const series: LatencySeries[] = [];
const samples: Record<string, unknown> = {};
try {
  const base = devnet.chains.find((c) => c.key === 'base')!;
  const indexer = await startIndexer(service.services, { background: false });
  await indexer.syncNow();
  const { rows } = await query<{ strategy_hash: string }>(
    service.services.db,
    `SELECT strategy_hash FROM strategies
      WHERE chain_key = 'base' AND app = $1 AND pair_key = 'USDC/USDT' AND status = 'active'
      ORDER BY strategy_hash LIMIT 1`,
    [base.router.toLowerCase()],
  );
  const hash = rows[0]?.strategy_hash;
  if (!hash) throw new Error('no open USDC/USDT strategy on the devnet');
  const newKey = async () =>
    (await createKey(service.services.db, { environment: 'live', prepareLimitPerMinute: 100_000 })).key;

  // One shipped position per dock key, shipped by the maker wallet as an integrator would.
  const chain = createChainClient(base, { rpcTimeoutMs: 10_000 });
  const wallet = createWalletClient({
    account: maker,
    chain: viemChainOf(base),
    transport: viemHttp(base.rpcUrl),
  });
  // The taker holds what it sells (the devnet's test tokens mint to anyone), so the swap is not refused.
  for (const token of base.tokens) {
    const data = encodeFunctionData({ abi: erc20Abi, functionName: 'mint', args: [taker, 1_000_000_000n] });
    const tx = await wallet.sendTransaction({ to: token.address as Address, data });
    await chain.waitForTransactionReceipt({ hash: tx });
  }
  const dockKeys: { key: string; position: string }[] = [];
  for (let i = 0; i < keysFor(WARM_UP + REQUESTS); i++) {
    const key = await newKey();
    const [status, text] = await post(
      `${service.url}/v1/positions`,
      JSON.stringify({
        chain: 'base',
        wallet: maker.address,
        deposits: [
          { symbol: 'USDC', amount: '1000000' },
          { symbol: 'USDT', amount: '1000000' },
        ],
        includeApprovals: false,
      }),
      { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    );
    if (status !== 200) throw new Error(`prepare answered ${status}: ${text}`);
    const p = JSON.parse(text) as { data: { strategyHash: string; transactions: { to: Hex; data: Hex }[] } };
    const ship = p.data.transactions.at(-1)!;
    await chain.waitForTransactionReceipt({
      hash: await wallet.sendTransaction({ to: ship.to, data: ship.data }),
    });
    dockKeys.push({ key, position: p.data.strategyHash });
  }
  await indexer.syncNow();
  await indexer.stop();
  const swapKeys = await Promise.all(Array.from({ length: keysFor(WARM_UP + REQUESTS) }, newKey));

  const run = async (name: string, next: (i: number) => Promise<number>) => {
    let i = 0;
    for (; i < WARM_UP; i++) await next(i);
    const times: number[] = [];
    for (; i < WARM_UP + REQUESTS; i++) times.push(await next(i));
    times.sort((a, b) => a - b);
    series.push({
      name,
      requests: REQUESTS,
      p50: round(percentile(times, 50)),
      p90: round(percentile(times, 90)),
      p99: round(percentile(times, 99)),
      mean: round(times.reduce((a, b) => a + b, 0) / times.length),
      max: round(times.at(-1)!),
    });
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
  const swapBody = JSON.stringify({
    chain: 'base',
    hash,
    wallet: taker,
    amount: '1000000',
    direction: 'aToB',
    slippageBps: 50,
  });
  await run('POST /v1/swaps (1 eth_call: quote + funding + taker)', (i) =>
    timed('swap', `${service.url}/v1/swaps`, swapBody, swapKeys[Math.floor(i / PER_KEY)]!),
  );
  await run('POST /v1/positions/{id}/dock (1 eth_call: rawBalances)', (i) => {
    const { key, position } = dockKeys[Math.floor(i / PER_KEY)]!;
    return timed('dock', `${service.url}/v1/positions/${position}/dock`, null, key);
  });
} finally {
  agent.destroy();
  await service.stop();
  await devnet.stop();
  await database.drop();
  rmSync(dataDir, { recursive: true, force: true });
}

printLatencyTable(series);
const file = writeResult('swap', {
  benchmark:
    'POST /v1/swaps and POST /v1/positions/{id}/dock over HTTP on the devnet, sequential, one client',
  series,
  samples,
  machine: machine(),
  measuredAt: new Date().toISOString(),
});
console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}; written ${file}`,
);
