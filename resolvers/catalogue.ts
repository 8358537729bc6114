/**
 * The read side of the catalogue: chains (registry + store), the stats roll-up, strategies (list,
 * search, detail) and badge metrics. Everything comes from what the indexer stored; nothing here
 * writes or calls a chain except to name a token the registry does not list.
 */
import type { Hex } from 'viem';
import { decodeStrategy } from '../chain/order.js';
import { decodeProgram } from '../chain/program.js';
import { pairKeyOf } from '../indexer/batch.js';
import type { ChainConfig } from '../lib/config.js';
import { ApiError, isApiError } from '../lib/errors.js';
import { RawJson } from '../lib/rawJson.js';
import { type TokenInfo, tokenKey } from '../loaders/catalogue.js';
import type { GraphQLContext } from '../schema/context.js';
import {
  type CheckpointRow,
  type ListedStrategy,
  type ListPosition,
  type ListProjection,
  listOpenStrategies,
  readCheckpoints,
  recentSwaps,
  type StrategyDetailRow,
  type StrategyRow,
  type StrategySortKey,
  type SwapRow,
} from '../store/catalogue.js';
import type { CatalogueRollup, ChainRollup, PairRollup } from '../store/rollups.js';

export const STRATEGY_SORTS = ['recent', 'volume'] as const;
export type StrategySort = StrategySortKey;
export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;
export const HASH = /^0x[0-9a-fA-F]{64}$/;
/** What `stats.source` says the numbers are. */
export const STATS_SOURCE = 'indexer:aqua-swapvm-events';

// ---------------------------------------------------------------------------------------------------
// Chains

export interface ChainView {
  config: ChainConfig;
  /** False when the store could not answer: the registry part is still served, the counts are null. */
  storeAvailable: boolean;
  rollup: ChainRollup | null;
  rollupUpdatedAt: Date | null;
  checkpoint: CheckpointRow | null;
}

/**
 * The live chains: every chain of the registry, with its counts from the roll-up and its checkpoint.
 * The chain list itself is configuration, so it is served even when the store is unreachable.
 */
export async function listChains(ctx: GraphQLContext): Promise<ChainView[]> {
  let storeAvailable = true;
  const [rollup, checkpoints] = await Promise.all([
    ctx.loaders.rollup.load('catalogue'),
    readCheckpoints(ctx.services.db),
  ]).catch((error: unknown) => {
    if (!isApiError(error) || error.code !== 'UPSTREAM_UNAVAILABLE') throw error;
    storeAvailable = false;
    return [null, [] as CheckpointRow[]] as const;
  });
  const byChain = new Map((rollup?.payload.chains ?? []).map((c) => [c.chain, c]));
  const checkpointOf = new Map(checkpoints.map((c) => [c.chain_key, c]));
  return ctx.services.registry.list().map((config) => ({
    config,
    storeAvailable,
    rollup: byChain.get(config.key) ?? null,
    rollupUpdatedAt: rollup?.refreshedAt ?? null,
    checkpoint: checkpointOf.get(config.key) ?? null,
  }));
}

// ---------------------------------------------------------------------------------------------------
// Stats

export interface StatsView {
  source: string;
  rollupUpdatedAt: Date | null;
  totals: CatalogueRollup['totals'];
  chains: ChainRollup[];
  pairs: PairRollup[];
}

const EMPTY_TOTALS: CatalogueRollup['totals'] = {
  strategies: 0,
  makers: 0,
  pairs: 0,
  chains: 0,
  volume_1d_usd: 0,
  volume_7d_usd: 0,
  volume_30d_usd: 0,
  last_activity: null,
};

/** The catalogue roll-up; before the first refresh, zeros and a null `rollupUpdatedAt`. */
export async function getStats(ctx: GraphQLContext): Promise<StatsView> {
  const rollup = await ctx.loaders.rollup.load('catalogue');
  if (!rollup)
    return { source: STATS_SOURCE, rollupUpdatedAt: null, totals: EMPTY_TOTALS, chains: [], pairs: [] };
  const { payload, refreshedAt } = rollup;
  return {
    source: STATS_SOURCE,
    rollupUpdatedAt: refreshedAt,
    totals: { ...EMPTY_TOTALS, ...payload.totals },
    chains: payload.chains ?? [],
    pairs: payload.pairs ?? [],
  };
}

/** Whole seconds since the roll-up was refreshed (never negative: clocks of two hosts may differ). */
export function freshnessSeconds(refreshedAt: Date | string | null, now = Date.now()): number | null {
  if (refreshedAt === null) return null;
  const at = typeof refreshedAt === 'string' ? Date.parse(refreshedAt) : refreshedAt.getTime();
  return Number.isNaN(at) ? null : Math.max(0, Math.floor((now - at) / 1000));
}

export function topPairsByVolume(pairs: readonly PairRollup[], limit: number): PairRollup[] {
  return [...pairs]
    .sort((a, b) => b.volume_30d_usd - a.volume_30d_usd || b.count - a.count || a.pair.localeCompare(b.pair))
    .slice(0, limit);
}

export function topPairsByPositions(pairs: readonly PairRollup[], limit: number): PairRollup[] {
  return [...pairs]
    .sort((a, b) => b.count - a.count || b.volume_30d_usd - a.volume_30d_usd || a.pair.localeCompare(b.pair))
    .slice(0, limit);
}

// ---------------------------------------------------------------------------------------------------
// Strategies: filters and cursors

/** A strategy as the schema resolves it: a list row, or a detail row that also has the shipped bytes. */
export type StrategyView = StrategyRow & Partial<Omit<StrategyDetailRow, keyof StrategyRow>>;

/** The detail columns of a listed strategy, loaded (batched) only when a field asks for them. */
export async function strategyDetailOf(
  ctx: GraphQLContext,
  row: StrategyView,
): Promise<Partial<StrategyDetailRow>> {
  if (row.strategy !== undefined) return row;
  const rows = await ctx.loaders.strategiesByHash.load(row.strategy_hash);
  return rows.find((r) => r.chain_key === row.chain_key) ?? {};
}

export interface StrategyPage {
  strategies: StrategyView[];
  page: { limit: number; nextCursor: string | null; sort: StrategySort };
}

export interface ListArgs {
  chain?: string | null;
  pair?: string | null;
  limit?: number | null;
  cursor?: string | null;
  sort?: StrategySort | null;
}

const SYMBOL = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,31}$/;

/** A chain key of the registry (case-insensitive), or 400 naming the parameter. */
export function resolveChain(ctx: GraphQLContext, key: string, parameter = 'chain'): ChainConfig {
  const registry = ctx.services.registry;
  const chain = registry.get(key) ?? registry.list().find((c) => c.key.toLowerCase() === key.toLowerCase());
  if (!chain) {
    throw ApiError.invalid(
      parameter,
      `Unknown chain "${key}"; live chains: ${registry.keys().join(', ') || 'none'}.`,
    );
  }
  return chain;
}

/** Every symbol the registry lists, by lower case, in its configured spelling. */
function registrySymbols(ctx: GraphQLContext): Map<string, string> {
  const symbols = new Map<string, string>();
  for (const chain of ctx.services.registry.list()) {
    for (const token of chain.tokens) symbols.set(token.symbol.toLowerCase(), token.symbol);
  }
  return symbols;
}

/**
 * `A/B` in either order and any case → the stored pair key: symbols the registry lists take its
 * spelling, then the indexer's own `pairKeyOf` orders them, so the filter is one exact key (one
 * index-ordered scan) whichever way the caller wrote it.
 */
export function resolvePair(
  ctx: GraphQLContext,
  text: string,
  parameter = 'pair',
): { pair: string; keys: string[] } {
  const parts = text.split('/').map((s) => s.trim());
  if (parts.length !== 2 || !parts.every((p) => SYMBOL.test(p))) {
    throw ApiError.invalid(
      parameter,
      `${parameter} must be two token symbols separated by "/", e.g. USDC/USDT.`,
    );
  }
  const known = registrySymbols(ctx);
  const [a, b] = parts.map((p) => known.get(p.toLowerCase()) ?? p) as [string, string];
  if (a.toLowerCase() === b.toLowerCase())
    throw ApiError.invalid(parameter, `${parameter} must name two different tokens.`);
  const pair = pairKeyOf(a, b);
  return { pair, keys: [pair] };
}

export function resolveLimit(limit: number | null | undefined): number {
  const value = limit ?? DEFAULT_LIMIT;
  if (!Number.isInteger(value) || value < 1 || value > MAX_LIMIT) {
    throw ApiError.invalid('limit', `limit must be an integer from 1 to ${MAX_LIMIT}.`);
  }
  return value;
}

const SORT_CODE: Record<StrategySort, string> = { recent: 'r', volume: 'v' };
const TIMESTAMP_TEXT = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d{1,6})?([+-]\d{2}(:\d{2})?|Z)$/;

/** The opaque cursor: the sort and the (key, hash, chain) of the last row shown, base64url JSON. */
export function encodeCursor(sort: StrategySort, position: ListPosition): string {
  return Buffer.from(
    JSON.stringify([SORT_CODE[sort], position.value, position.hash, position.chain]),
  ).toString('base64url');
}

export function decodeCursor(cursor: string, sort: StrategySort): ListPosition {
  const invalid = () =>
    ApiError.invalid('cursor', 'cursor is not one this service issued; start again without it.');
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(cursor)) throw invalid();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(parsed) || parsed.length !== 4) throw invalid();
  const [code, value, hash, chain] = parsed as unknown[];
  if (typeof hash !== 'string' || !HASH.test(hash) || typeof chain !== 'string' || chain.length > 64)
    throw invalid();
  if (code === 'r' && typeof value === 'string' && TIMESTAMP_TEXT.test(value)) {
    if (sort !== 'recent')
      throw ApiError.invalid('cursor', 'cursor was issued for sort=recent; keep the same sort.');
    return { value, hash, chain };
  }
  if (code === 'v' && typeof value === 'number' && Number.isFinite(value)) {
    if (sort !== 'volume')
      throw ApiError.invalid('cursor', 'cursor was issued for sort=volume; keep the same sort.');
    return { value, hash, chain };
  }
  throw invalid();
}

async function page(
  ctx: GraphQLContext,
  filter: { chains: string[] | null; pairs: string[] | null },
  args: { limit?: number | null; cursor?: string | null; sort?: StrategySort | null },
  projection: ListProjection,
): Promise<StrategyPage> {
  const sort = args.sort ?? 'recent';
  if (!STRATEGY_SORTS.includes(sort))
    throw ApiError.invalid('sort', `sort must be one of ${STRATEGY_SORTS.join(', ')}.`);
  const limit = resolveLimit(args.limit);
  const after = args.cursor ? decodeCursor(args.cursor, sort) : null;
  const rows: ListedStrategy[] =
    filter.pairs?.length === 0 || filter.chains?.length === 0
      ? []
      : await listOpenStrategies(ctx.services.db, {
          sort,
          chains: filter.chains,
          pairs: filter.pairs,
          after,
          limit,
          projection,
        });
  const shown = rows.slice(0, limit);
  const last = shown.at(-1);
  const nextCursor =
    rows.length > limit && last
      ? encodeCursor(sort, { value: last.sort_value, hash: last.strategy_hash, chain: last.chain_key })
      : null;
  return { strategies: shown, page: { limit, nextCursor, sort } };
}

/** Open strategies, filtered by chain and pair, one keyset page at a time. */
export async function listStrategies(
  ctx: GraphQLContext,
  args: ListArgs,
  projection: ListProjection = 'full',
): Promise<StrategyPage> {
  const chains = args.chain ? [resolveChain(ctx, args.chain).key] : null;
  const pairs = args.pair ? resolvePair(ctx, args.pair).keys : null;
  return page(ctx, { chains, pairs }, args, projection);
}

export interface SearchArgs {
  q: string;
  limit?: number | null;
  cursor?: string | null;
  sort?: StrategySort | null;
}

export interface StrategySearch extends StrategyPage {
  query: { q: string; chains: string[]; symbols: string[]; unmatched: string[] };
}

/**
 * Free text over pair and chain: each word names a chain (key or name) or a token symbol, exactly or
 * by prefix ("usd" → USDC, USDT). Chains are alternatives; two or more symbol words must all be in the
 * pair. A word that names nothing leaves the result empty and is reported in `unmatched`.
 */
export async function searchStrategies(
  ctx: GraphQLContext,
  args: SearchArgs,
  projection: ListProjection = 'full',
): Promise<StrategySearch> {
  const q = args.q.trim();
  if (q.length === 0 || q.length > 100)
    throw ApiError.invalid('q', 'q must be 1 to 100 characters of search text.');
  const words = [
    ...new Set(
      q
        .toLowerCase()
        .split(/[\s,/]+/)
        .filter(Boolean),
    ),
  ];
  const rollup = await ctx.loaders.rollup.load('catalogue');
  const chains = ctx.services.registry.list();
  // Every symbol and pair known to the registry or to the roll-up.
  const symbols = registrySymbols(ctx);
  const pairKeys = new Set<string>();
  for (const pair of rollup?.payload.pairs ?? []) {
    pairKeys.add(pair.pair);
    for (const s of pair.pair.split('/')) if (!symbols.has(s.toLowerCase())) symbols.set(s.toLowerCase(), s);
  }
  const registryList = [...new Set(chains.flatMap((c) => c.tokens.map((t) => t.symbol)))];
  for (const a of registryList) for (const b of registryList) if (a !== b) pairKeys.add(pairKeyOf(a, b));

  const matchedChains = new Set<string>();
  const symbolGroups: string[][] = [];
  const unmatched: string[] = [];
  for (const word of words) {
    const exactChain = chains.filter((c) => c.key.toLowerCase() === word || c.name?.toLowerCase() === word);
    const exactSymbol = symbols.get(word);
    if (exactChain.length > 0 || exactSymbol) {
      for (const c of exactChain) matchedChains.add(c.key);
      if (exactSymbol) symbolGroups.push([exactSymbol]);
      continue;
    }
    const prefixChains = chains.filter(
      (c) => c.key.toLowerCase().startsWith(word) || (c.name?.toLowerCase().startsWith(word) ?? false),
    );
    const prefixSymbols = [...symbols].filter(([lower]) => lower.startsWith(word)).map(([, s]) => s);
    for (const c of prefixChains) matchedChains.add(c.key);
    if (prefixSymbols.length > 0) symbolGroups.push(prefixSymbols);
    if (prefixChains.length === 0 && prefixSymbols.length === 0) unmatched.push(word);
  }
  const pairs =
    symbolGroups.length === 0
      ? null
      : [...pairKeys].filter((key) => {
          const inPair = key.split('/');
          return symbolGroups.every((group) => group.some((s) => inPair.includes(s)));
        });
  const result =
    unmatched.length > 0
      ? {
          strategies: [],
          page: { limit: resolveLimit(args.limit), nextCursor: null, sort: args.sort ?? 'recent' },
        }
      : await page(
          ctx,
          { chains: matchedChains.size > 0 ? [...matchedChains] : null, pairs },
          args,
          projection,
        );
  return {
    ...result,
    query: { q, chains: [...matchedChains], symbols: [...new Set(symbolGroups.flat())], unmatched },
  };
}

// ---------------------------------------------------------------------------------------------------
// One strategy

/**
 * A strategy by hash, open or docked. A hash is chain-independent, so the same bytes shipped on two
 * chains are two strategies: `chain` picks one; without it the open one shipped last wins (its
 * `alsoOnChains` names the others).
 */
export async function strategyByHash(
  ctx: GraphQLContext,
  hash: string,
  chain?: string | null,
): Promise<StrategyDetailRow | null> {
  if (!HASH.test(hash)) throw ApiError.invalid('hash', 'hash must be 0x followed by 64 hex characters.');
  const chainKey = chain ? resolveChain(ctx, chain).key : null;
  const rows = await ctx.loaders.strategiesByHash.load(hash.toLowerCase());
  const candidates = chainKey ? rows.filter((r) => r.chain_key === chainKey) : rows;
  const [best] = [...candidates].sort(
    (a, b) =>
      Number(b.status === 'active') - Number(a.status === 'active') ||
      Date.parse(b.shipped_at) - Date.parse(a.shipped_at),
  );
  return best ?? null;
}

export interface StrategyTokenView {
  address: string;
  symbol: string | null;
  decimals: number | null;
  initialAmount: string | null;
  currentAmount: string | null;
}

type TokenItem = { address?: unknown; token?: unknown; symbol?: unknown; decimals?: unknown } & Record<
  string,
  unknown
>;

const amountText = (value: unknown): string | null =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint' ? String(value) : null;

/**
 * The tokens of a strategy with their amounts in base units. Two-token strategies carry everything in
 * columns; other token counts keep `tokens` (addresses, maybe amounts) and are named through the
 * token loader.
 */
export function strategyTokens(
  ctx: GraphQLContext,
  row: StrategyView,
): StrategyTokenView[] | Promise<StrategyTokenView[]> {
  if (row.token_a && row.token_b) {
    const tokens: StrategyTokenView[] = [
      {
        address: row.token_a,
        symbol: row.symbol_a,
        decimals: row.decimals_a,
        initialAmount: row.initial_a,
        currentAmount: row.balance_a,
      },
      {
        address: row.token_b,
        symbol: row.symbol_b,
        decimals: row.decimals_b,
        initialAmount: row.initial_b,
        currentAmount: row.balance_b,
      },
    ];
    if (tokens.every((t) => t.symbol !== null && t.decimals !== null)) return tokens;
    return fillTokens(ctx, row.chain_key, tokens);
  }
  const items = Array.isArray(row.tokens) ? (row.tokens as unknown[]) : [];
  const tokens = items.flatMap((item): StrategyTokenView[] => {
    const entry: TokenItem = typeof item === 'string' ? { address: item } : ((item ?? {}) as TokenItem);
    const address =
      typeof entry.address === 'string'
        ? entry.address
        : typeof entry.token === 'string'
          ? entry.token
          : null;
    if (!address) return [];
    return [
      {
        address: address.toLowerCase(),
        symbol: typeof entry.symbol === 'string' ? entry.symbol : null,
        decimals: typeof entry.decimals === 'number' ? entry.decimals : null,
        initialAmount: amountText(entry.initial ?? entry.initialAmount ?? entry.amount),
        currentAmount: amountText(entry.balance ?? entry.currentAmount),
      },
    ];
  });
  return fillTokens(ctx, row.chain_key, tokens);
}

async function fillTokens(
  ctx: GraphQLContext,
  chain: string,
  tokens: StrategyTokenView[],
): Promise<StrategyTokenView[]> {
  const infos = await Promise.all(
    tokens.map((t) =>
      t.symbol !== null && t.decimals !== null
        ? null
        : ctx.loaders.token.load(tokenKey(chain, t.address)).catch((): TokenInfo | null => null),
    ),
  );
  return tokens.map((t, i) => ({
    ...t,
    symbol: t.symbol ?? infos[i]?.symbol ?? null,
    decimals: t.decimals ?? infos[i]?.decimals ?? null,
  }));
}

export function pairOf(row: StrategyView): string | null {
  if (row.pair_key) return row.pair_key;
  return row.symbol_a && row.symbol_b ? pairKeyOf(row.symbol_a, row.symbol_b) : null;
}

export function chainIdOf(ctx: GraphQLContext, row: StrategyView): number {
  return ctx.services.registry.get(row.chain_key)?.chainId ?? 0;
}

/** The app is the chain's verified router (the one quotes simulate). */
export function isVerifiedRouter(ctx: GraphQLContext, row: StrategyView): boolean {
  return ctx.services.registry.get(row.chain_key)?.router.toLowerCase() === row.app.toLowerCase();
}

export const shippedOf = (row: StrategyView) => ({
  at: row.shipped_at,
  block: Number(row.shipped_block),
  tx: row.shipped_tx,
});

export const dockedOf = (row: StrategyView) =>
  row.status === 'docked'
    ? { at: row.docked_at, block: row.docked_block === null ? null : Number(row.docked_block) }
    : null;

/** A strategy as plain data, built by the same functions as the typed fields. */
function summaryOf(ctx: GraphQLContext, row: StrategyView) {
  return {
    hash: row.strategy_hash,
    chain: row.chain_key,
    chainId: chainIdOf(ctx, row),
    maker: row.maker,
    app: row.app,
    verifiedRouter: isVerifiedRouter(ctx, row),
    pair: pairOf(row),
    tokens: strategyTokens(ctx, row),
    status: row.status,
    volumeUsd: row.volume_usd,
    swapCount: row.swap_count,
    lastSwapAt: row.last_swap_at,
    shipped: shippedOf(row),
    docked: dockedOf(row),
  };
}

/**
 * The strategies of a page as one serialised JSON array of summaries (summaryOf). A page walked field by
 * field costs graphql-js ~30 field executions per strategy, more than the rest of the request
 * together; the REST list takes this one value instead and splices it into its body. A row with its
 * entry rendered by the store (`list_json`) adds only chainId and verifiedRouter to it; the others are
 * built from their columns (bench/catalogue.ts).
 */
export function summarise(ctx: GraphQLContext, rows: readonly StrategyView[]): RawJson | Promise<RawJson> {
  let pending = false;
  const parts: Array<string | ReturnType<typeof summaryOf>> = rows.map((row) => {
    const rendered = (row as Partial<ListedStrategy>).list_json;
    if (rendered) {
      return `{"chainId":${chainIdOf(ctx, row)},"verifiedRouter":${isVerifiedRouter(ctx, row)},${rendered.slice(1)}`;
    }
    const summary = summaryOf(ctx, row);
    if (summary.tokens instanceof Promise) pending = true;
    return summary;
  });
  // Concatenated, not joined: the body this is spliced into is flattened once, when it is written.
  const text = (items: Array<string | object>) => {
    let json = '[';
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      json += (i === 0 ? '' : ',') + (typeof item === 'string' ? item : JSON.stringify(item));
    }
    return new RawJson(`${json}]`);
  };
  // Only strategies with a token outside the columns wait (for the token loader).
  if (!pending) return text(parts);
  return Promise.all(
    parts.map(async (p) => (typeof p === 'string' ? p : { ...p, tokens: await p.tokens })),
  ).then(text);
}

/** The shipped bytes decoded: the order (maker, traits, Aqua flag) and the program's instructions. */
export async function decodedStrategy(ctx: GraphQLContext, row: StrategyView): Promise<unknown> {
  let bytes = row.strategy;
  let stored = row.program;
  if (bytes === undefined) {
    const full = (await ctx.loaders.strategiesByHash.load(row.strategy_hash)).find(
      (r) => r.chain_key === row.chain_key,
    );
    bytes = full?.strategy;
    stored = full?.program;
  }
  const order = bytes ? decodeStrategy(bytes as Hex) : null;
  if (!order) return { order: null, program: toJson(stored ?? []) };
  return {
    order: {
      maker: order.maker.toLowerCase(),
      traits: order.traits.toString(),
      useAqua: ((order.traits >> 254n) & 1n) === 1n,
      data: order.data,
    },
    program: toJson(decodeProgram(order.data)),
  };
}

/** bigints (uint256 args) as decimal strings, so the value is plain JSON. */
function toJson(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)));
}

export interface SwapView {
  txHash: string;
  logIndex: number;
  block: number;
  at: Date;
  taker: string;
  tokenIn: string;
  tokenOut: string;
  amountIn: string;
  amountOut: string;
  volumeUsd: number;
}

export async function strategySwaps(
  ctx: GraphQLContext,
  row: StrategyView,
  limit: number,
): Promise<SwapView[]> {
  if (!Number.isInteger(limit) || limit < 0 || limit > MAX_LIMIT) {
    throw ApiError.invalid('swaps', `swaps must be an integer from 0 to ${MAX_LIMIT}.`);
  }
  if (limit === 0) return [];
  const rows: SwapRow[] = await recentSwaps(ctx.services.db, row.chain_key, row.strategy_hash, limit);
  return rows.map((s) => ({
    txHash: s.tx_hash,
    logIndex: s.log_index,
    block: Number(s.block_number),
    at: s.block_time,
    taker: s.taker,
    tokenIn: s.token_in,
    tokenOut: s.token_out,
    amountIn: s.amount_in,
    amountOut: s.amount_out,
    volumeUsd: s.volume_usd,
  }));
}

// ---------------------------------------------------------------------------------------------------
// Badge

export const BADGE_METRICS = [
  'volume30',
  'volume7',
  'volume1',
  'strategies',
  'makers',
  'pairs',
  'chains',
] as const;
export type BadgeMetric = (typeof BADGE_METRICS)[number];

export const BADGE_LABELS: Record<BadgeMetric, string> = {
  volume30: 'volume 30d',
  volume7: 'volume 7d',
  volume1: 'volume 24h',
  strategies: 'strategies',
  makers: 'makers',
  pairs: 'pairs',
  chains: 'chains',
};

export interface BadgeView {
  metric: BadgeMetric;
  label: string;
  value: number;
  message: string;
  color: string;
  rollupUpdatedAt: Date;
}

/** The metric's value from the roll-up, formatted; UPSTREAM_UNAVAILABLE before the first roll-up. */
export async function badge(ctx: GraphQLContext, metric: BadgeMetric): Promise<BadgeView> {
  if (!BADGE_METRICS.includes(metric)) {
    throw ApiError.invalid('metric', `metric must be one of ${BADGE_METRICS.join(', ')}.`);
  }
  const rollup = await ctx.loaders.rollup.load('catalogue');
  if (!rollup) throw new ApiError('UPSTREAM_UNAVAILABLE', 'The catalogue roll-up is not ready yet.');
  const totals = { ...EMPTY_TOTALS, ...rollup.payload.totals };
  const value = {
    volume30: totals.volume_30d_usd,
    volume7: totals.volume_7d_usd,
    volume1: totals.volume_1d_usd,
    strategies: totals.strategies,
    makers: totals.makers,
    pairs: totals.pairs,
    chains: totals.chains,
  }[metric];
  const money = metric.startsWith('volume');
  return {
    metric,
    label: BADGE_LABELS[metric],
    value,
    message: money ? formatUsd(value) : formatCount(value),
    color: value > 0 ? (money ? 'brightgreen' : 'blue') : 'lightgrey',
    rollupUpdatedAt: rollup.refreshedAt,
  };
}

const UNITS = [
  { size: 1, suffix: '' },
  { size: 1e3, suffix: 'K' },
  { size: 1e6, suffix: 'M' },
  { size: 1e9, suffix: 'B' },
  { size: 1e12, suffix: 'T' },
] as const;

/**
 * Short magnitude text: one decimal under 10 of a unit, none from 10 on ("1.2M", "950K", "12"); a
 * value that rounds up to 1000 of a unit moves to the next one ("999,999" → "1M", never "1000K").
 */
export function formatCompact(value: number): string {
  if (!Number.isFinite(value)) return '0';
  const sign = value < 0 ? '-' : '';
  const abs = Math.abs(value);
  let i = Math.max(
    0,
    UNITS.findLastIndex((u) => abs >= u.size),
  );
  for (;;) {
    const unit = UNITS[i]!;
    const scaled = abs / unit.size;
    const rounded = scaled < 9.95 ? Math.round(scaled * 10) / 10 : Math.round(scaled);
    if (rounded >= 1000 && i < UNITS.length - 1) {
      i++;
      continue;
    }
    return `${sign}${rounded}${unit.suffix}`;
  }
}

export function formatUsd(value: number): string {
  const text = formatCompact(value);
  return text.startsWith('-') ? `-$${text.slice(1)}` : `$${text}`;
}

/** Counts: exact under 10,000 ("9,876" reads better than "9.9K"), compact above. */
export function formatCount(value: number): string {
  return Math.abs(value) < 10_000 ? Math.round(value).toLocaleString('en-US') : formatCompact(value);
}
