/**
 * Where a token's USD price comes from: the chains file's `usd` (fixed) or `usdFeed` (a feed), under
 * TOKEN_PRICES_USD; a token nothing prices has no price (0 USD), never 1.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { priceSources, unreadPrices } from '../../chain/prices.js';
import { readChainsFile } from '../../lib/chains.js';
import { loadConfig } from '../../lib/config.js';
import { amountUsd } from '../../lib/usd.js';

const dir = mkdtempSync(path.join(tmpdir(), 'prices-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const FEE = '0x00000000000000000000000000000000000000fe';
const EURC = '0x60a3E35Cc302bFA44Cb288Bc5a4F316Fdb1adb42';
const FEED = '0xDAe398520e2B67cd3f27aeF9Cf14D93D927f8250';

function chains(entries: unknown[]) {
  const file = path.join(dir, `chains-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify({ chains: entries }));
  return readChainsFile(file);
}

describe('price sources', () => {
  it('prices the presets’ dollar stablecoins at their peg, a listed EURC by its feed, and nothing else', () => {
    const served = chains([
      {
        key: 'base',
        rpcUrls: ['https://base.example'],
        feeReceiver: FEE,
        tokens: [{ symbol: 'EURC', address: EURC, decimals: 6, usdFeed: FEED }],
      },
      {
        key: 'arc',
        rpcUrls: ['https://arc.example'],
        feeReceiver: FEE,
        tokens: [{ symbol: 'WETH', address: FEED, decimals: 18 }],
      },
    ]);
    const sources = priceSources(served, {});
    expect(sources.find((s) => s.symbol === 'USDC')).toMatchObject({
      source: 'fixed',
      usd: 1,
      chain: 'base',
    });
    expect(sources.find((s) => s.symbol === 'USDT')).toMatchObject({ source: 'fixed', usd: 1 });
    // A feed has no price until it is read: never a guess.
    expect(sources.find((s) => s.symbol === 'EURC')).toMatchObject({ source: 'feed', usd: null, feed: FEED });
    expect(sources.find((s) => s.symbol === 'WETH')).toBeUndefined();
    const table = unreadPrices(served);
    expect(table).toEqual({ USDC: 1, USDT: 1 });
    expect(amountUsd(table, { symbol: 'EURC', decimals: 6, amount: 5_000_000n })).toBe(0);
    expect(amountUsd(table, { symbol: 'WETH', decimals: 18, amount: 10n ** 18n })).toBe(0);
  });

  it('keeps the preset’s peg for a token an entry lists again without a price of its own', () => {
    const [base] = chains([
      {
        key: 'base',
        rpcUrls: ['https://base.example'],
        feeReceiver: FEE,
        tokens: [
          { symbol: 'USDC', address: EURC, decimals: 6 },
          { symbol: 'USDT', address: FEED, decimals: 6, usd: 0.999 },
        ],
      },
    ]);
    expect(base!.tokens.find((t) => t.symbol === 'USDC')).toMatchObject({ address: EURC, usd: 1 });
    expect(base!.tokens.find((t) => t.symbol === 'USDT')).toMatchObject({ usd: 0.999 });
  });

  it('lets TOKEN_PRICES_USD override any source, by symbol in any case', () => {
    const served = chains([{ key: 'base', rpcUrls: ['https://base.example'], feeReceiver: FEE }]);
    const overrides = loadConfig({ TOKEN_PRICES_USD: 'usdt=0.998,EURC=1.17' }).priceOverridesUsd;
    expect(unreadPrices(served, overrides)).toEqual({ USDC: 1, USDT: 0.998, EURC: 1.17 });
    expect(priceSources(served, overrides).find((s) => s.symbol === 'USDT')).toMatchObject({
      source: 'override',
      chain: null,
    });
  });

  it('takes no implicit price: unset TOKEN_PRICES_USD is no override', () => {
    expect(loadConfig({}).priceOverridesUsd).toEqual({});
  });

  it('refuses a token with both a fixed price and a feed, and a price that is not positive', () => {
    const entry = (token: object) => [
      { key: 'base', rpcUrls: ['https://base.example'], feeReceiver: FEE, tokens: [token] },
    ];
    expect(() =>
      chains(entry({ symbol: 'EURC', address: EURC, decimals: 6, usd: 1.1, usdFeed: FEED })),
    ).toThrow(/tokens\.0\.usdFeed: give usd \(a fixed price\) or usdFeed \(a price feed\), not both/);
    expect(() => chains(entry({ symbol: 'EURC', address: EURC, decimals: 6, usd: 0 }))).toThrow(
      /tokens\.0\.usd/,
    );
    expect(() => chains(entry({ symbol: 'EURC', address: EURC, decimals: 6, usdFeed: 'feed' }))).toThrow(
      /tokens\.0\.usdFeed/,
    );
  });
});
