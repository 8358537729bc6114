/** Volume time series: parameters checked before any SQL, buckets dense and oldest first. */
import { ApiError } from '../lib/errors.js';
import { cents } from '../lib/usd.js';
import { type BucketRow, type Granularity, volumeBuckets } from '../store/series.js';
import { HASH, resolveChain, resolvePair, resolveToken } from './catalogue/params.js';
import type { GraphQLContext } from './context.js';

export type { Granularity };

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
export const BUCKET_MS: Record<Granularity, number> = { hour: HOUR_MS, day: DAY_MS };
/** Most buckets of one series: 92 days of hours, about a year of days. */
export const MAX_BUCKETS: Record<Granularity, number> = { hour: 92 * 24, day: 366 };
/** Without `from`: the last 48 hours, or the last 30 days (the current bucket included). */
export const DEFAULT_BUCKETS: Record<Granularity, number> = { hour: 48, day: 30 };
export const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

export interface SeriesArgs {
  granularity: Granularity;
  from?: string | null;
  to?: string | null;
  chain?: string | null;
  pair?: string | null;
  /** A token symbol or listed address: every pair holding it. */
  token?: string | null;
  maker?: string | null;
  strategy?: string | null;
}

export interface VolumeBucket {
  start: Date;
  volumeUsd: number;
  swapCount: number;
  makerFeesUsd: number;
  protocolFeesUsd: number;
}

export interface VolumeSeries {
  granularity: Granularity;
  /** First bucket's start (inclusive). */
  from: Date;
  /** End of the last bucket (exclusive). */
  to: Date;
  filters: {
    chain: string | null;
    pair: string | null;
    token: string | null;
    maker: string | null;
    strategy: string | null;
  };
  buckets: VolumeBucket[];
}

const floorTo = (ms: number, step: number) => Math.floor(ms / step) * step;
const ceilTo = (ms: number, step: number) => Math.ceil(ms / step) * step;

function parseTime(text: string, parameter: string): number {
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw ApiError.invalid(parameter, `${parameter} must be an ISO 8601 date-time.`);
  return ms;
}

/**
 * The bucket range: `from` rounded down and `to` rounded up to whole UTC hours or days; `to` defaults
 * to the end of the current bucket, `from` to DEFAULT_BUCKETS before `to`.
 */
export function seriesRange(args: Pick<SeriesArgs, 'granularity' | 'from' | 'to'>, now = Date.now()) {
  const step = BUCKET_MS[args.granularity];
  const to = args.to ? ceilTo(parseTime(args.to, 'to'), step) : floorTo(now, step) + step;
  const from = args.from
    ? floorTo(parseTime(args.from, 'from'), step)
    : to - DEFAULT_BUCKETS[args.granularity] * step;
  if (from >= to) throw ApiError.invalid('from', 'from must be before to.');
  const buckets = (to - from) / step;
  if (buckets > MAX_BUCKETS[args.granularity]) {
    throw ApiError.invalid(
      'from',
      `A ${args.granularity} series has at most ${MAX_BUCKETS[args.granularity]} buckets; this range has ${buckets}.`,
    );
  }
  return { from: new Date(from), to: new Date(to), step };
}

export async function volumeSeries(ctx: GraphQLContext, args: SeriesArgs): Promise<VolumeSeries> {
  const { from, to, step } = seriesRange(args);
  const chain = args.chain ? resolveChain(ctx, args.chain).key : null;
  const pair = args.pair ? resolvePair(ctx, args.pair).pair : null;
  const token = args.token ? resolveToken(ctx, args.token) : null;
  const pairs = token
    ? token.pairs.filter((p) => pair === null || p === pair)
    : pair === null
      ? null
      : [pair];
  if (args.maker && !ADDRESS.test(args.maker))
    throw ApiError.invalid('maker', 'maker must be an address: 0x followed by 40 hex characters.');
  if (args.strategy && !HASH.test(args.strategy))
    throw ApiError.invalid('strategy', 'strategy must be a strategy hash: 0x followed by 64 hex characters.');
  const filters = {
    chain,
    pair,
    token: token?.symbol ?? null,
    maker: args.maker ? args.maker.toLowerCase() : null,
    strategy: args.strategy ? args.strategy.toLowerCase() : null,
  };
  const rows = await volumeBuckets(ctx.services.db, args.granularity, from, to, { ...filters, pairs });
  return { granularity: args.granularity, from, to, filters, buckets: denseBuckets(rows, from, to, step) };
}

/** Every bucket of [from, to), oldest first: the stored ones, and zeros between them. */
function denseBuckets(rows: readonly BucketRow[], from: Date, to: Date, step: number): VolumeBucket[] {
  const byStart = new Map(rows.map((r) => [r.start.getTime(), r]));
  const buckets: VolumeBucket[] = [];
  for (let t = from.getTime(); t < to.getTime(); t += step) {
    const row = byStart.get(t);
    buckets.push({
      start: new Date(t),
      volumeUsd: cents(row?.volume_usd ?? 0),
      swapCount: row?.swap_count ?? 0,
      makerFeesUsd: cents(row?.maker_fees_usd ?? 0),
      protocolFeesUsd: cents(row?.protocol_fees_usd ?? 0),
    });
  }
  return buckets;
}

/**
 * `Strategy.activity`: the strategy's series, as volumeSeries(chain, strategy) answers it, read through
 * the request's loader so that a page of strategies costs one statement.
 */
export async function strategyActivity(
  ctx: GraphQLContext,
  strategy: { chain_key: string; strategy_hash: string },
  args: Pick<SeriesArgs, 'granularity' | 'from' | 'to'>,
): Promise<VolumeSeries> {
  const { from, to, step } = seriesRange(args);
  const rows = await ctx.loaders.activity.load({
    granularity: args.granularity,
    from,
    to,
    chain: strategy.chain_key,
    hash: strategy.strategy_hash,
  });
  const filters = {
    chain: strategy.chain_key,
    pair: null,
    token: null,
    maker: null,
    strategy: strategy.strategy_hash,
  };
  return { granularity: args.granularity, from, to, filters, buckets: denseBuckets(rows, from, to, step) };
}
