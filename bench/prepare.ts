/**
 * Issue 7's figure: latency of POST /v1/positions over HTTP on the devnet (three anvil chains), the
 * real service (express → persisted GraphQL mutation → one multicall eth_call → Postgres insert),
 * sequential requests from one node:http client (one kept-alive socket). Target: p50 ≤ 15 ms for a fresh prepare.
 *   npm run bench:prepare        (BENCH_REQUESTS=300, BENCH_PREPARE_PORT=19206)
 * Writes bench/results/prepare.json.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import type { Address } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { erc20Abi } from '../chain/abi.js';
import { startDevnet } from '../devnet/devnet.js';
import { loadConfig } from '../lib/config.js';
import { createLogger } from '../lib/logger.js';
import { createKey } from '../resolvers/apiKeys.js';
import { startService } from '../service.js';
import { createTestDatabase } from '../test/helpers/postgres.js';
import { type LatencySeries, machine, printLatencyTable, writeResult } from './lib.js';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 300);
const WARM_UP = 100;
const TARGET_P50_MS = 15;
const BASE_PORT = Number(process.env.BENCH_PREPARE_PORT ?? 19206);
/** anvil's default mnemonic; index 9 is not used by the devnet. */
const wallet: Address = mnemonicToAccount('test test test test test test test test test test test junk', {
  addressIndex: 9,
}).address;

/** node:http with one kept-alive socket: a lighter client than fetch, so the figure is the server's. */
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
function post(url: string, body: string, headers: Record<string, string>): Promise<[number, string]> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve([res.statusCode ?? 0, Buffer.concat(chunks).toString('utf8')]));
    });
    req.on('error', reject);
    req.end(body);
  });
}

function percentile(sorted: number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

const round = (ms: number) => Math.round(ms * 100) / 100;

const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-prepare-'));
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
  const run = async (name: string, next: () => Promise<number>) => {
    for (let i = 0; i < WARM_UP; i++) await next();
    const times: number[] = [];
    for (let i = 0; i < REQUESTS; i++) times.push(await next());
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

  const fresh = body(false);
  await run('fresh prepare (2 allowances, 1 multicall, 1 insert)', () => call(fresh));
  const checked = body(true);
  await run('fresh prepare + checkBalances + Idempotency-Key (4 reads, 1 multicall)', () =>
    call(checked, randomUUID()),
  );
  const replayKey = randomUUID();
  await call(checked, replayKey);
  await run('idempotent repeat (stored payload, no RPC)', () => call(checked, replayKey));

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
  agent.destroy();
  await service.stop();
  await devnet.stop();
  await database.drop();
  rmSync(dataDir, { recursive: true, force: true });
}

printLatencyTable(series);
const headline = series[0]!;
const pass = headline.p50 <= TARGET_P50_MS;
console.log(
  `fresh prepare p50 ${headline.p50} ms, p99 ${headline.p99} ms (target p50 ≤ ${TARGET_P50_MS} ms) ${pass ? 'MET' : 'MISSED'}`,
);
const file = writeResult('prepare', {
  benchmark: 'POST /v1/positions over HTTP on the devnet, sequential, one client, in-process service',
  series,
  targetP50Ms: TARGET_P50_MS,
  pass,
  sampleResponse: sample,
  machine: machine(),
  measuredAt: new Date().toISOString(),
});
console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}; written ${file}`,
);
