/**
 * The USD price of every listed token, from where the chains file says it comes (a token's `usd`, a fixed
 * peg the operator states, or its `usdFeed`, a Chainlink-style aggregator on the same chain read as
 * `latestRoundData().answer / 10^decimals()`), under TOKEN_PRICES_USD (an operator's override by symbol).
 * A token without any of them has no price: it counts 0 USD, never 1.
 *
 * Prices are by symbol, as every USD figure of the read models is (lib/usd.ts): a symbol's price is the
 * one of the first chain that gives it a source. Feeds are read at most once per PRICE_REFRESH_MS, one
 * multicall per chain; a read that fails keeps the last answer (its `updatedAt` tells how old it is).
 */
import type { Address } from 'viem';
import type { ChainConfig } from '../lib/chains.js';
import type { UsdPrices } from '../lib/usd.js';
import { aggregatorV3Abi } from './abi.js';
import type { ChainClients } from './clients.js';
import type { ChainRegistry } from './registry.js';

export type PriceSourceKind = 'override' | 'fixed' | 'feed';

/** Where one symbol's price comes from, and the price now (null: none yet, or none at all). */
export interface PriceSource {
  symbol: string;
  source: PriceSourceKind;
  usd: number | null;
  /** The chain whose chains-file entry names the source (null for an override). */
  chain: string | null;
  /** The feed read (source `feed`). */
  feed: Address | null;
  /** When the feed's answer was last updated on its chain (source `feed`). */
  updatedAt: Date | null;
}

interface FeedRef {
  symbol: string;
  chain: string;
  feed: Address;
}

export interface PriceBookOptions {
  /** TOKEN_PRICES_USD: a price by upper-case symbol, over any source of the chains file. */
  overrides: Readonly<Record<string, number>>;
  /** PRICE_REFRESH_MS: the longest a feed's answer is used before it is read again. */
  refreshMs: number;
  onFeedError?: (chain: string, error: unknown) => void;
}

/**
 * Where each symbol's price comes from: an override, else the first chain whose token gives a feed or a
 * fixed price. Feeds have no price until read.
 */
export function priceSources(
  chains: readonly ChainConfig[],
  overrides: Readonly<Record<string, number>>,
): PriceSource[] {
  const sources = new Map<string, PriceSource>();
  const none = { chain: null, feed: null, updatedAt: null };
  for (const [symbol, usd] of Object.entries(overrides))
    sources.set(symbol.toUpperCase(), { ...none, symbol: symbol.toUpperCase(), source: 'override', usd });
  for (const chain of chains) {
    for (const token of chain.tokens) {
      const symbol = token.symbol.toUpperCase();
      if (sources.has(symbol)) continue;
      if (token.usdFeed !== undefined)
        sources.set(symbol, {
          ...none,
          symbol,
          source: 'feed',
          usd: null,
          chain: chain.key,
          feed: token.usdFeed as Address,
        });
      else if (token.usd !== undefined)
        sources.set(symbol, { ...none, symbol, source: 'fixed', usd: token.usd, chain: chain.key });
    }
  }
  return [...sources.values()];
}

/** The prices known without reading a feed (overrides and fixed prices): for tools over stored data. */
export function unreadPrices(
  chains: readonly ChainConfig[],
  overrides: Readonly<Record<string, number>> = {},
): UsdPrices {
  const table: Record<string, number> = {};
  for (const s of priceSources(chains, overrides)) if (s.usd !== null) table[s.symbol] = s.usd;
  return table;
}

export class PriceBook {
  private readonly sourcesBySymbol = new Map<string, PriceSource>();
  private readonly feeds: FeedRef[] = [];
  private table: UsdPrices = {};
  private readAt = Number.NEGATIVE_INFINITY;
  private reading: Promise<void> | null = null;

  constructor(
    registry: ChainRegistry,
    private readonly clients: ChainClients,
    private readonly options: PriceBookOptions,
  ) {
    for (const source of priceSources(registry.list(), options.overrides)) {
      this.sourcesBySymbol.set(source.symbol, source);
      if (source.source === 'feed')
        this.feeds.push({ symbol: source.symbol, chain: source.chain!, feed: source.feed! });
    }
    this.rebuild();
    if (this.feeds.length === 0) this.readAt = Number.POSITIVE_INFINITY;
  }

  /**
   * The price table now. The first call waits for the feeds' first read; later ones answer at once and
   * read the feeds again in the background once PRICE_REFRESH_MS has passed.
   */
  async usd(): Promise<UsdPrices> {
    const due = Date.now() - this.readAt >= this.options.refreshMs;
    if (due && this.reading === null) this.reading = this.readFeeds().finally(() => (this.reading = null));
    if (this.readAt === Number.NEGATIVE_INFINITY && this.reading) await this.reading;
    return this.table;
  }

  /** Reads every feed now (and waits for it): after a test moves a feed, or at start. */
  async refresh(): Promise<UsdPrices> {
    while (this.reading) await this.reading;
    this.reading = this.readFeeds().finally(() => (this.reading = null));
    await this.reading;
    return this.table;
  }

  /** Every symbol that has a source, and its price now. */
  sources(): PriceSource[] {
    return [...this.sourcesBySymbol.values()];
  }

  /** The symbols the chains list that nothing prices (they count 0 USD): said at start. */
  unpriced(registry: ChainRegistry): string[] {
    const symbols = new Set(registry.list().flatMap((c) => c.tokens.map((t) => t.symbol.toUpperCase())));
    return [...symbols].filter((s) => !this.sourcesBySymbol.has(s)).sort();
  }

  source(symbol: string): PriceSource | undefined {
    return this.sourcesBySymbol.get(symbol.toUpperCase());
  }

  private rebuild(): void {
    const table: Record<string, number> = {};
    for (const s of this.sourcesBySymbol.values()) if (s.usd !== null) table[s.symbol] = s.usd;
    this.table = table;
  }

  private async readFeeds(): Promise<void> {
    const byChain = new Map<string, FeedRef[]>();
    for (const f of this.feeds) byChain.set(f.chain, [...(byChain.get(f.chain) ?? []), f]);
    await Promise.all(
      [...byChain].map(async ([chain, feeds]) => {
        try {
          const answers = await this.clients.get(chain).multicall({
            allowFailure: true,
            contracts: feeds.flatMap((f) => [
              { address: f.feed, abi: aggregatorV3Abi, functionName: 'decimals' } as const,
              { address: f.feed, abi: aggregatorV3Abi, functionName: 'latestRoundData' } as const,
            ]),
          });
          feeds.forEach((f, i) => {
            const decimals = answers[2 * i];
            const round = answers[2 * i + 1];
            if (decimals?.status !== 'success' || round?.status !== 'success') return;
            const [, answer, , updatedAt] = round.result as readonly [bigint, bigint, bigint, bigint, bigint];
            // A feed that answers nothing usable (0, negative) keeps the last good answer.
            if (answer <= 0n) return;
            const source = this.sourcesBySymbol.get(f.symbol)!;
            source.usd = Number(answer) / 10 ** Number(decimals.result);
            source.updatedAt = new Date(Number(updatedAt) * 1000);
          });
        } catch (error) {
          this.options.onFeedError?.(chain, error);
        }
      }),
    );
    this.readAt = Date.now();
    this.rebuild();
  }
}

/** The price book of a process: its chains' sources under TOKEN_PRICES_USD, feeds read through `clients`. */
export function createPriceBook(
  registry: ChainRegistry,
  clients: ChainClients,
  config: { priceOverridesUsd: Readonly<Record<string, number>>; priceRefreshMs: number },
  onFeedError?: (chain: string, error: unknown) => void,
): PriceBook {
  return new PriceBook(registry, clients, {
    overrides: config.priceOverridesUsd,
    refreshMs: config.priceRefreshMs,
    onFeedError,
  });
}
