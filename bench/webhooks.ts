/**
 * Webhook delivery latency from the block that ships a position to the receiver, on
 * the devnet (three anvil chains). The real service with its embedded indexer (INDEXER_POLL_MS, 1 s by
 * default) and delivery worker; a real receiver on 127.0.0.1 verifying each signature. For each of
 * BENCH_POSITIONS positions, one after the other: prepare over HTTP, the maker wallet sends the ship, and
 * the clock runs from its receipt (the block exists) to the arrival of the verified position.shipped.
 * The indexer's poll interval dominates (the ship lands anywhere in it): the series is also run with a
 * 100 ms poll.
 *   npm run bench:webhooks      (BENCH_POSITIONS=30, BENCH_WEBHOOKS_PORT=19446)
 * Writes bench/results/webhooks.json.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createWalletClient, type Hex, http as viemHttp } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { createChainClient, viemChainOf } from '../chain/clients.js';
import { startDevnet } from '../devnet/devnet.js';
import { loadConfig } from '../lib/config.js';
import { createLogger } from '../lib/logger.js';
import { createKey } from '../resolvers/apiKeys.js';
import { startService } from '../service.js';
import { createTestDatabase } from '../test/helpers/postgres.js';
import { startReceiver, verified } from '../test/helpers/webhookReceiver.js';
import {
  type LatencySeries,
  machine,
  percentileOfSorted,
  printLatencyTable,
  writeResult,
} from './measure.js';

const POSITIONS = Number(process.env.BENCH_POSITIONS ?? 30);
const BASE_PORT = Number(process.env.BENCH_WEBHOOKS_PORT ?? 19446);
const MNEMONIC = 'test test test test test test test test test test test junk';
const maker = mnemonicToAccount(MNEMONIC, { addressIndex: 9 });

const percentile = percentileOfSorted;
const round = (ms: number) => Math.round(ms * 10) / 10;

const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-webhooks-'));
const devnet = await startDevnet({ basePort: BASE_PORT, dataDir, activityMs: 2_000_000_000 });
const base = devnet.chains.find((c) => c.key === 'base')!;
const chain = createChainClient(base, { rpcTimeoutMs: 10_000 });
const wallet = createWalletClient({
  account: maker,
  chain: viemChainOf(base),
  transport: viemHttp(base.rpcUrl),
});
const receiver = await startReceiver();
const series: LatencySeries[] = [];
const samples: Record<string, number[]> = {};

async function run(pollMs: number): Promise<void> {
  const database = await createTestDatabase();
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    DATABASE_URL: database.url,
    INTERNAL_TOKEN: 'bench-internal-token-0123456789',
    INDEXER_POLL_MS: String(pollMs),
    WEBHOOK_ALLOW_HTTP: '1',
    WEBHOOK_ALLOW_PRIVATE: '1',
  });
  const service = await startService(config, { chains: devnet.chains, logger: createLogger('silent') });
  try {
    const key = (
      await createKey(service.services.db, { environment: 'live', prepareLimitPerMinute: 100_000 })
    ).key;
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
    const created = await fetch(`${service.url}/v1/webhooks`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: receiver.url, events: ['position.shipped'] }),
    });
    const { data: hook } = (await created.json()) as { data: { secret: string } };
    const latencies: number[] = [];
    for (let i = 0; i < POSITIONS; i++) {
      const res = await fetch(`${service.url}/v1/positions`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          chain: 'base',
          wallet: maker.address,
          deposits: [
            { symbol: 'USDC', amount: String(1_000_000 + i) },
            { symbol: 'USDT', amount: '1000000' },
          ],
          includeApprovals: false,
        }),
      });
      if (res.status !== 200) throw new Error(`prepare answered ${res.status}: ${await res.text()}`);
      const p = (await res.json()) as { data: { strategyHash: Hex; transactions: { to: Hex; data: Hex }[] } };
      const ship = p.data.transactions.at(-1)!;
      await chain.waitForTransactionReceipt({
        hash: await wallet.sendTransaction({ to: ship.to, data: ship.data }),
      });
      const mined = Date.now();
      const [got] = await receiver.waitFor(1, (r) => r.body.includes(p.data.strategyHash), 30_000);
      verified(hook.secret, got!);
      latencies.push(got!.at - mined);
    }
    const sorted = [...latencies].sort((a, b) => a - b);
    const name = `ship block → receiver (INDEXER_POLL_MS=${pollMs})`;
    samples[name] = latencies;
    series.push({
      name,
      requests: latencies.length,
      p50: round(percentile(sorted, 50)),
      p90: round(percentile(sorted, 90)),
      p99: round(percentile(sorted, 99)),
      mean: round(latencies.reduce((a, b) => a + b, 0) / latencies.length),
      max: round(sorted.at(-1)!),
    });
  } finally {
    await service.stop();
    await database.drop();
  }
}

try {
  await run(1000);
  await run(100);
  printLatencyTable(series);
  console.log(
    `wrote ${writeResult('webhooks', { machine: machine(), positions: POSITIONS, series, samples })}`,
  );
} finally {
  await receiver.stop();
  await devnet.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
