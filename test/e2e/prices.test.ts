/**
 * USD prices from where the chains file says they come, on the devnet: USDC and USDT at the fixed peg
 * its manifest states, EURC from a Chainlink-style feed the devnet deploys. /api/chains tells each
 * token's price and source; when the feed's owner moves the answer, the next read of the feed prices
 * EURC anew in /api/chains and in a maker's TVL.
 */
import { type Address, encodeFunctionData } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aggregatorV3Abi } from '../../chain/abi.js';
import { until } from '../helpers/load.js';
import { testPort } from '../helpers/ports.js';
import { MNEMONIC, startWritePath, type WritePath } from '../helpers/writePath.js';

let w: WritePath;
/** The devnet's deployer (devnet/chains.ts rolesOf): it deployed the feeds, so only it moves them. */
const deployer = mnemonicToAccount(MNEMONIC, { addressIndex: 0 });

interface Price {
  usd: number | null;
  source: string;
  feed: string | null;
  updatedAt: string | null;
}
interface ChainBody {
  key: string;
  tokens: Record<string, { address: string; decimals: number; price: Price | null }>;
}
interface MakerBody {
  tvl: { usd: number; tokens: { symbol: string | null; amount: string; usd: number }[] };
}

async function json<T>(path: string): Promise<T> {
  const res = await w.svc.get(path);
  expect(res.status, path).toBe(200);
  return ((await res.json()) as { data: T }).data;
}

const baseTokens = async () =>
  (await json<{ chains: ChainBody[] }>('/api/chains')).chains.find((c) => c.key === 'base')!.tokens;

/** A maker of a USDC/EURC strategy on base, from the list. */
async function eurcMaker(): Promise<Address> {
  const list = await json<{ strategies: { maker: Address }[] }>(
    '/api/strategies?chain=base&pair=EURC/USDC&limit=1',
  );
  return list.strategies[0]!.maker;
}

const eurcOf = (m: MakerBody) => m.tvl.tokens.find((t) => t.symbol === 'EURC')!;

beforeAll(async () => {
  w = await startWritePath({
    basePort: testPort(20400),
    proxyPort: testPort(20403),
    name: 'prices-e2e',
    // The feed read again a second after its last read, instead of a minute.
    env: { PRICE_REFRESH_MS: '1000' },
  });
  // The seeded catalogue: its makers' strategies and balances.
  await w.indexer.syncNow();
}, 180_000);

afterAll(async () => {
  await w?.stop();
});

describe('USD prices and their sources', () => {
  it('/api/chains gives each token its price and where it comes from', async () => {
    const tokens = await baseTokens();
    expect(tokens.USDC!.price).toEqual({ usd: 1, source: 'fixed', feed: null, updatedAt: null });
    expect(tokens.USDT!.price).toEqual({ usd: 1, source: 'fixed', feed: null, updatedAt: null });
    const eurc = tokens.EURC!.price!;
    expect(eurc).toMatchObject({ usd: 1.08, source: 'feed' });
    expect(eurc.feed).toMatch(/^0x[0-9a-fA-F]{40}$/);
    // The feed's own update time (the block that set it), not the time of the read.
    expect(Number.isNaN(Date.parse(eurc.updatedAt!))).toBe(false);
  });

  it('prices EURC anew once its feed moves: /api/chains and the maker TVL follow it', async () => {
    const maker = await eurcMaker();
    const before = eurcOf(await json<MakerBody>(`/api/makers/${maker}?chain=base&limit=1`));
    expect(before.usd).toBeCloseTo((Number(before.amount) / 1e6) * 1.08, 1);

    const feed = (await baseTokens()).EURC!.price!.feed as Address;
    await w.send(deployer, {
      to: feed,
      data: encodeFunctionData({ abi: aggregatorV3Abi, functionName: 'setAnswer', args: [110_000_000n] }),
    });
    // The answer of the next read of the feed (the cached /api/chains body ages out on its own).
    const tokens = await until(baseTokens, (t) => t.EURC!.price!.usd === 1.1);
    expect(tokens.EURC!.price!.source).toBe('feed');
    const after = eurcOf(
      await until(
        () => json<MakerBody>(`/api/makers/${maker}?chain=base&limit=1`),
        (m) => eurcOf(m).usd !== before.usd,
      ),
    );
    expect(after.amount).toBe(before.amount);
    expect(after.usd).toBeCloseTo((Number(after.amount) / 1e6) * 1.1, 1);
  });

  it('a feed’s owner alone moves it', async () => {
    const feed = (await baseTokens()).EURC!.price!.feed as Address;
    const stranger = mnemonicToAccount(MNEMONIC, { addressIndex: 9 });
    await expect(
      w.send(stranger, {
        to: feed,
        data: encodeFunctionData({ abi: aggregatorV3Abi, functionName: 'setAnswer', args: [1n] }),
      }),
    ).rejects.toThrow();
  });
});
