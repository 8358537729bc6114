/**
 * What a strategy or a maker earned over 1, 7 and 30 days and its lifetime: the maker's and the
 * protocol's fees in token units and USD, the time-weighted liquidity of the window and the APY it
 * gives (store/earnings.ts reads the buckets of migration 027).
 *
 * APY = maker fees of the window ÷ ∫ liquidity dt over the window × 365 days, in percent: fees per
 * dollar-year of liquidity, simple (not compounded). Liquidity is the virtual balance of the two
 * tokens; fees and liquidity are both priced at today's USD prices, so a price move changes neither
 * side alone. Time the strategies held nothing adds nothing, so a position open for an hour of the
 * window is measured over that hour.
 *
 * The windows end when the chain's events are all stored (its indexer checkpoint), not at the request:
 * the figures are exact as of the data, and the same until the catalogue moves (so a cached answer and
 * its ETag stay valid meanwhile). Without a checkpoint (rows not written by an indexer) they end at the
 * latest event of the strategy or maker, which is as far as its data goes.
 */

import { cents, priceOf } from '../lib/usd.js';
import { windowStarts } from '../lib/windows.js';
import {
  chainIndexedThrough,
  type EarningsRow,
  makerEarnings,
  makerSpan,
  strategyEarnings,
} from '../store/earnings.js';
import type { GraphQLContext } from './context.js';

const YEAR_SECONDS = 365 * 86_400;

export interface EarningsToken {
  address: string;
  symbol: string | null;
  decimals: number | null;
  makerFees: string;
  protocolFees: string;
  makerFeesUsd: number;
  protocolFeesUsd: number;
  averageLiquidityUsd: number;
}

export interface EarningsWindow {
  /** 1, 7, 30; null for the lifetime. */
  days: number | null;
  since: Date;
  /** The clock the figures were computed at: the end of the window. */
  until: Date;
  makerFeesUsd: number;
  protocolFeesUsd: number;
  averageLiquidityUsd: number;
  /** Percent; null when the window held no priced liquidity. */
  apy: number | null;
  tokens: EarningsToken[];
}

/** Integer text (numeric) → a float of token units; the integral may carry a fraction of a second. */
const units = (text: string, decimals: number) => Number(text) / 10 ** decimals;

/** The windows of `rows` (one per start), priced at `prices`, tokens described by the registry. */
export function earningsWindows(
  ctx: GraphQLContext,
  chain: string,
  rows: readonly EarningsRow[],
  windows: readonly { days: number | null; since: Date }[],
  now: Date,
  prices: Readonly<Record<string, number>>,
): EarningsWindow[] {
  return windows.map((w, i) => {
    const seconds = Math.max(1, (now.getTime() - w.since.getTime()) / 1000);
    let makerUsd = 0;
    let protocolUsd = 0;
    let liquidityUsdSeconds = 0;
    const tokens = rows
      .filter((r) => r.window === i)
      .map((r): EarningsToken => {
        const known = ctx.services.registry.tokenByAddress(chain, r.token);
        const symbol = known?.symbol ?? null;
        const decimals = known?.decimals ?? null;
        const price = decimals === null ? 0 : priceOf(prices, symbol);
        const usd = (text: string) => (decimals === null ? 0 : units(text, decimals) * price);
        const maker = usd(r.maker_fees);
        const protocol = usd(r.protocol_fees);
        const liquidity = usd(r.balance_seconds);
        makerUsd += maker;
        protocolUsd += protocol;
        liquidityUsdSeconds += liquidity;
        return {
          address: r.token,
          symbol,
          decimals,
          makerFees: r.maker_fees,
          protocolFees: r.protocol_fees,
          makerFeesUsd: cents(maker),
          protocolFeesUsd: cents(protocol),
          averageLiquidityUsd: cents(liquidity / seconds),
        };
      });
    return {
      days: w.days,
      since: w.since,
      until: now,
      makerFeesUsd: cents(makerUsd),
      protocolFeesUsd: cents(protocolUsd),
      averageLiquidityUsd: cents(liquidityUsdSeconds / seconds),
      apy: liquidityUsdSeconds > 0 ? apyOf(makerUsd, liquidityUsdSeconds) : null,
      tokens,
    };
  });
}

/** Percent, to two decimals. */
export function apyOf(makerFeesUsd: number, liquidityUsdSeconds: number): number {
  return Math.round((makerFeesUsd / liquidityUsdSeconds) * YEAR_SECONDS * 100 * 100) / 100;
}

/** Where the windows of `chain` end (see above), or at `latest` without a checkpoint. */
async function endOf(ctx: GraphQLContext, chain: string, latest: () => Promise<Date>): Promise<Date> {
  return (await chainIndexedThrough(ctx.services.db, chain)) ?? (await latest());
}

const latestOf = (...times: (Date | string | null | undefined)[]): Date =>
  new Date(Math.max(...times.map((t) => (t ? new Date(t).getTime() : 0))));

function windowsFrom(now: Date, lifetimeStart: Date) {
  const w = windowStarts(now);
  return [
    { days: 1, since: w.d1 },
    { days: 7, since: w.d7 },
    { days: 30, since: w.d30 },
    { days: null, since: lifetimeStart },
  ];
}

/** A strategy's windows; its lifetime starts when it shipped. */
export async function strategyEarningsOf(
  ctx: GraphQLContext,
  s: {
    chain_key: string;
    strategy_hash: string;
    shipped_at: Date | string;
    docked_at?: Date | string | null;
    last_swap_at?: Date | string | null;
  },
): Promise<EarningsWindow[]> {
  const now = await endOf(ctx, s.chain_key, async () => latestOf(s.shipped_at, s.docked_at, s.last_swap_at));
  const windows = windowsFrom(now, new Date(s.shipped_at));
  const [rows, prices] = await Promise.all([
    strategyEarnings(
      ctx.services.db,
      s.chain_key,
      s.strategy_hash,
      windows.map((w) => w.since),
      now,
    ),
    ctx.services.prices.usd(),
  ]);
  return earningsWindows(ctx, s.chain_key, rows, windows, now, prices);
}

/** A maker's windows over all its strategies on the chain; its lifetime starts with its first ship. */
export async function makerEarningsOf(
  ctx: GraphQLContext,
  m: { chain_key: string; maker: string },
): Promise<EarningsWindow[]> {
  const span = await makerSpan(ctx.services.db, m.chain_key, m.maker);
  const now = await endOf(ctx, m.chain_key, async () => latestOf(span.last));
  const first = span.first ?? now;
  const windows = windowsFrom(now, new Date(first));
  const [rows, prices] = await Promise.all([
    makerEarnings(
      ctx.services.db,
      m.chain_key,
      m.maker,
      windows.map((w) => w.since),
      now,
    ),
    ctx.services.prices.usd(),
  ]);
  return earningsWindows(ctx, m.chain_key, rows, windows, now, prices);
}
