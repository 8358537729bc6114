/**
 * Backfill at scale: a service whose chain is far behind its head (a chain of 20,000
 * blocks of 2 s, served by bench/servers/chainStub.ts) is ready after INDEXER_FIRST_PASS_SECONDS with
 * what it indexed, and goes on indexing in the background. Meanwhile reads are served and say how old
 * their data is: meta.freshnessSeconds is the age of the last indexed block (hours), not of the last
 * refresh; /metrics shows the backfill's progress. Once caught up, the data is fresh.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, spawnReady } from '../../bench/processes.js';
import type { StubManifest } from '../../bench/servers/chainStubManifest.js';
import { AQUA_TRAITS, encodeStrategy, strategyHashOf } from '../../chain/order.js';
import { buildProgram, salt, xycSwap } from '../../chain/program.js';
import type { ChainConfig } from '../../lib/config.js';
import { startTestService, type TestService } from '../helpers/service.js';

const METRICS_TOKEN = 'backfill-metrics-token-0123456789';
const SWAP_BLOCKS = 20_000;
const address = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as Address;
const maker = address(0xbeef);

let dataDir: string;
let stub: { stop(): Promise<void> };
let svc: TestService;
let head: number;

interface Meta {
  freshnessSeconds: number | null;
}

let client = 0;
async function chains(): Promise<{ lastBlock: number | null; freshness: number | null }> {
  const res = await svc.get('/api/chains', {
    headers: { 'x-forwarded-for': `10.9.${++client >> 8}.${client & 255}` },
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as {
    data: { chains: { indexer: { lastBlock: number } | null }[] };
    meta: Meta;
  };
  return {
    lastBlock: body.data.chains[0]?.indexer?.lastBlock ?? null,
    freshness: body.meta.freshnessSeconds,
  };
}

async function metric(name: string): Promise<number> {
  const res = await svc.get('/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  const line = (await res.text()).split('\n').find((l) => l.startsWith(`${name}{chain="base"}`));
  return Number(line?.split(' ').pop());
}

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'backfill-test-'));
  const strategies = Array.from({ length: 20 }, (_, i) => {
    const strategy = encodeStrategy({
      maker,
      traits: AQUA_TRAITS,
      data: buildProgram([xycSwap(), salt(BigInt(i + 1))]),
    });
    return { maker: maker.toLowerCase(), hash: strategyHashOf(strategy), strategy };
  });
  const manifest: StubManifest = {
    chainId: 8453,
    aqua: address(0xa0a),
    router: address(0x5a9),
    tokens: [address(0x1001), address(0x1002)],
    taker: address(0xcafe),
    strategies,
    swapBlocks: SWAP_BLOCKS,
    swapsPerBlock: 1,
    endAgeSeconds: 0,
  };
  head = Math.ceil(strategies.length / 5) + SWAP_BLOCKS;
  const manifestFile = path.join(dataDir, 'manifest.json');
  writeFileSync(manifestFile, JSON.stringify(manifest));
  const port = await freePort();
  stub = await spawnReady('bench/servers/chainStub.ts', [String(port), manifestFile]);
  const chain: ChainConfig = {
    key: 'base',
    chainId: 8453,
    rpcUrl: `http://127.0.0.1:${port}`,
    aqua: manifest.aqua,
    router: manifest.router,
    multicall: address(0xca11),
    feeReceiver: address(0xfee),
    testnet: false,
    tokens: [
      { symbol: 'USDC', address: manifest.tokens[0], decimals: 6 },
      { symbol: 'USDT', address: manifest.tokens[1], decimals: 6 },
    ],
    startBlock: 0,
    confirmations: 0,
  };
  svc = await startTestService({
    chains: [chain],
    env: {
      INDEXER: 'embedded',
      INDEXER_CHUNK_BLOCKS: '100',
      INDEXER_FIRST_PASS_SECONDS: '0.5',
      INDEXER_POLL_MS: '100',
      ROLLUP_REFRESH_MS: '200',
      METRICS_TOKEN,
      // The polls below come from distinct clients: the chains bucket is never what they meet.
      TRUST_PROXY: '1',
    },
  });
}, 120_000);

afterAll(async () => {
  await svc?.stop();
  await stub?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('a service whose chain is far behind', () => {
  it('is ready before the backfill ends and says how old its data is', async () => {
    expect((await svc.get('/readyz')).status).toBe(200);
    const during = await chains();
    expect(during.lastBlock).not.toBeNull();
    expect(during.lastBlock!).toBeLessThan(head - 1000);
    // The roll-up is at most a refresh old, but its data is the indexed block's: thousands of seconds.
    expect(during.freshness!).toBeGreaterThanOrEqual(2 * (head - during.lastBlock!) - 60);
    const stats = await svc.get('/api/stats');
    expect(stats.status).toBe(200);
    expect(((await stats.json()) as { meta: Meta }).meta.freshnessSeconds!).toBeGreaterThan(1000);

    const ratio = await metric('gateway_indexer_backfill_ratio');
    expect(ratio).toBeGreaterThan(0);
    expect(ratio).toBeLessThan(1);
    expect(await metric('gateway_indexer_backfill_logs_per_second')).toBeGreaterThan(0);
    expect(await metric('gateway_indexer_lag_blocks')).toBeGreaterThan(1000);
  });

  it('is fresh once caught up', async () => {
    const deadline = Date.now() + 240_000;
    let now = await chains();
    while ((now.lastBlock ?? -1) < head && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 500));
      now = await chains();
    }
    expect(now.lastBlock).toBe(head);
    // A refresh after the catch-up (ROLLUP_REFRESH_MS 200): the data is as of the last look at the head.
    // Polled rather than read once after a fixed 1.5 s: a busy box may take longer to run the refresh.
    let after = await chains();
    for (const end = Date.now() + 20_000; !(after.freshness! < 30) && Date.now() < end; ) {
      await new Promise((r) => setTimeout(r, 250));
      after = await chains();
    }
    expect(after.freshness!).toBeLessThan(30);
    expect(await metric('gateway_indexer_lag_blocks')).toBe(0);
  }, 250_000);
});
