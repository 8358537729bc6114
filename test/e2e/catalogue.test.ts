import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Address, Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aquaAbi } from '../../chain/abi.js';
import { dockCalldata } from '../../chain/calldata.js';
import { DEVNET_USD_PRICES } from '../../devnet/chains.js';
import type { Devnet } from '../../devnet/devnet.js';
import { query } from '../../store/db.js';
import { startSeededDevnet } from '../helpers/devnetSnapshot.js';
import { testPort } from '../helpers/ports.js';
import { startTestService, type TestService } from '../helpers/service.js';

/**
 * The catalogue read paths end to end: the devnet's three chains (ports 19100-19102), the service with
 * its embedded indexer following them, every request over the socket. The activity bot is idle so the
 * suite decides what changes on chain (a dock).
 */

const BASE_PORT = testPort(19100);

let devnet: Devnet;
let dataDir: string;
let svc: TestService;
let client = 0;

// biome-ignore lint/suspicious/noExplicitAny: response bodies are JSON checked field by field by the assertions.
type Body = Record<string, any>;

function get(pathAndQuery: string): Promise<Response> {
  client++;
  return svc.get(pathAndQuery, { headers: { 'x-forwarded-for': `10.77.${client >> 8}.${client & 255}` } });
}

async function json(pathAndQuery: string): Promise<Body> {
  const res = await get(pathAndQuery);
  const body = (await res.json()) as Body;
  if (res.status !== 200) throw new Error(`${pathAndQuery}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

/** Every open strategy the list shows, page by page. */
async function openList(query = ''): Promise<Body[]> {
  const out: Body[] = [];
  let cursor: string | null = null;
  for (let guard = 0; guard < 100; guard++) {
    const body = await json(`/api/strategies?limit=100${query}${cursor ? `&cursor=${cursor}` : ''}`);
    out.push(...body.data.strategies);
    cursor = body.data.page.nextCursor;
    if (!cursor) break;
  }
  return out;
}

async function until<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false>,
  ms = 20_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'catalogue-e2e-'));
  devnet = await startSeededDevnet({ basePort: BASE_PORT, dataDir, activityMs: 2_000_000_000 });
  // The service's own indexer (INDEXER=embedded): it is started, indexed and rolled up before this resolves.
  svc = await startTestService({
    chains: devnet.chains,
    env: { TRUST_PROXY: '1', INDEXER: 'embedded', INDEXER_POLL_MS: '100', ROLLUP_REFRESH_MS: '300' },
  });
}, 120_000);

afterAll(async () => {
  await svc?.stop();
  await devnet?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('catalogue over the devnet', () => {
  it('shows a non-empty catalogue: stats with volume, totals equal to the chains', async () => {
    const { data, meta } = await json('/api/stats');
    expect(data.totals.strategies).toBeGreaterThan(0);
    expect(data.totals.makers).toBeGreaterThan(0);
    expect(data.totals.volume_30d_usd).toBeGreaterThan(0);
    expect(data.totals.rollup_updated_at).not.toBeNull();
    expect(data.chains.map((c: Body) => c.chain).sort()).toEqual(devnet.chains.map((c) => c.key).sort());
    expect(data.chains.reduce((s: number, c: Body) => s + c.count, 0)).toBe(data.totals.strategies);
    expect(data.top_pairs_by_volume.length).toBeGreaterThan(0);
    expect(data.top_pairs_by_positions.length).toBeGreaterThan(0);
    expect(meta.freshnessSeconds).toBeGreaterThanOrEqual(0);
  });

  it('lists the live chains with the devnet manifest addresses and counts', async () => {
    const { data } = await json('/api/chains');
    expect(data.chains.map((c: Body) => c.key)).toEqual(devnet.chains.map((c) => c.key));
    for (const chain of devnet.chains) {
      const shown = data.chains.find((c: Body) => c.key === chain.key);
      expect(shown).toMatchObject({
        chainId: chain.chainId,
        contracts: { aqua: chain.aqua.toLowerCase(), router: chain.router.toLowerCase() },
        countsAvailable: true,
      });
      for (const token of chain.tokens) {
        // Priced as the manifest says: a fixed peg, or the feed the devnet deployed (read live).
        expect(shown.tokens[token.symbol]).toMatchObject({
          address: token.address,
          decimals: token.decimals,
          price: token.usdFeed
            ? { usd: DEVNET_USD_PRICES[token.symbol], source: 'feed', feed: token.usdFeed }
            : { usd: token.usd, source: 'fixed', feed: null, updatedAt: null },
        });
      }
      expect(shown.counts.strategies).toBeGreaterThan(0);
      expect(shown.indexer.lastBlock).toBeGreaterThan(0);
    }
  });

  it('lists open strategies only; docked ones (docked on chain too) are not in the list', async () => {
    const open = await openList();
    expect(open.length).toBeGreaterThan(0);
    expect(open.every((s) => s.status === 'active')).toBe(true);
    const { rows: docked } = await query<{
      chain_key: string;
      strategy_hash: string;
      maker: string;
      app: string;
      token_a: string;
    }>(
      svc.services.db,
      "SELECT chain_key, strategy_hash, maker, app, token_a FROM strategies WHERE status = 'docked'",
    );
    expect(docked.length).toBeGreaterThan(0);
    const shown = new Set(open.map((s) => `${s.chain}:${s.hash}`));
    for (const d of docked) expect(shown.has(`${d.chain_key}:${d.strategy_hash}`)).toBe(false);
    // The chain agrees: a docked strategy's tokensCount is 0xFF.
    const d = docked[0]!;
    const [, tokensCount] = await svc.services.clients.get(d.chain_key).readContract({
      address: devnet.chains.find((c) => c.key === d.chain_key)!.aqua as Address,
      abi: aquaAbi,
      functionName: 'rawBalances',
      args: [d.maker as Address, d.app as Address, d.strategy_hash as Hex, d.token_a as Address],
    });
    expect(tokensCount).toBe(0xff);
    // And the detail still shows it, as docked.
    const detail = await json(`/api/strategy-detail?hash=${d.strategy_hash}&chain=${d.chain_key}`);
    expect(detail.data).toMatchObject({ status: 'docked', docked: { at: expect.any(String) } });
  });

  it('filters by pair in either order, and by chain', async () => {
    const forward = await openList('&pair=USDC/USDT');
    const backward = await openList('&pair=usdt/usdc');
    expect(forward.length).toBeGreaterThan(0);
    expect(backward.map((s) => s.hash).sort()).toEqual(forward.map((s) => s.hash).sort());
    expect(new Set(forward.map((s) => s.pair))).toEqual(new Set(['USDC/USDT']));
    const onBase = await openList('&pair=USDT/USDC&chain=base');
    expect(onBase.length).toBeGreaterThan(0);
    expect(onBase.every((s) => s.chain === 'base' && s.pair === 'USDC/USDT')).toBe(true);
    expect(onBase.length).toBeLessThan(forward.length);
  });

  it('describes a strategy: tokens, amounts, decimals and the decoded program', async () => {
    const [first] = await openList('&chain=base');
    const { data } = await json(`/api/strategy-detail?hash=${first!.hash}`);
    const base = devnet.chains.find((c) => c.key === 'base')!;
    expect(data).toMatchObject({ hash: first!.hash, chain: 'base', chainId: base.chainId, status: 'active' });
    expect(data.tokens).toHaveLength(2);
    for (const token of data.tokens) {
      const listed = base.tokens.find((t) => t.address.toLowerCase() === token.address)!;
      expect(token).toMatchObject({ symbol: listed.symbol, decimals: listed.decimals });
      expect(token.initialAmount).toMatch(/^\d+$/);
      expect(token.currentAmount).toMatch(/^\d+$/);
    }
    expect(data.decoded.order.useAqua).toBe(true);
    expect(data.decoded.program.map((i: Body) => i.name)).toContain('XYCSwap');
    expect(typeof data.shipped.tx).toBe('string');
  });

  it('takes a strategy docked on chain out of the open list once the indexer sees it', async () => {
    const [victim] = await openList('&chain=arc');
    const { rows } = await query<{ maker: string; app: string; token_a: string; token_b: string }>(
      svc.services.db,
      "SELECT maker, app, token_a, token_b FROM strategies WHERE chain_key = 'arc' AND strategy_hash = $1",
      [victim!.hash],
    );
    const row = rows[0]!;
    const arc = devnet.chains.find((c) => c.key === 'arc')!;
    const chain = svc.services.clients.get('arc');
    const tx = (await chain.request({
      method: 'eth_sendTransaction',
      params: [
        {
          from: row.maker,
          to: arc.aqua,
          data: dockCalldata({
            app: row.app as Address,
            strategyHash: victim!.hash as Hex,
            tokens: [row.token_a as Address, row.token_b as Address],
          }),
        },
      ],
    } as never)) as Hex;
    expect((await chain.waitForTransactionReceipt({ hash: tx, pollingInterval: 20 })).status).toBe('success');
    await until('the dock to be indexed', async () => {
      const { data } = await json(`/api/strategy-detail?hash=${victim!.hash}&chain=arc`);
      return data.status === 'docked';
    });
    const open = await openList('&chain=arc');
    expect(open.map((s) => s.hash)).not.toContain(victim!.hash);
  });

  it('renders badges from the live roll-up', async () => {
    const volume = await json('/api/badge');
    expect(volume).toMatchObject({
      schemaVersion: 1,
      label: 'volume 30d',
      message: expect.stringMatching(/^\$\d/),
    });
    expect(volume.isError).toBeUndefined();
    const chains = await json('/api/badge?metric=chains');
    expect(chains.message).toBe(String(devnet.chains.length));
  });
});
