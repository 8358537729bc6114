/** The parameters of the strategy reads: sorts, limits, chain keys and pairs, checked before any SQL. */
import { pairKeyOf } from '../../indexer/batch.js';
import type { ChainConfig } from '../../lib/config.js';
import { ApiError } from '../../lib/errors.js';
import type { StrategySortKey } from '../../store/strategyList.js';
import type { GraphQLContext } from '../context.js';

export const STRATEGY_SORTS = ['recent', 'volume', 'fees', 'apy'] as const;
/** The curves a strategy's program can run (the `kind` of a listed strategy). */
export const PROGRAM_KINDS = ['xyc', 'concentrated', 'pegged', 'other'] as const;
export type StrategySort = StrategySortKey;
export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;
export const HASH = /^0x[0-9a-fA-F]{64}$/;

const SYMBOL = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,31}$/;

/** A chain key of the registry (case-insensitive), or 422 UNSUPPORTED_CHAIN naming the parameter. */
export function resolveChain(ctx: GraphQLContext, key: string, parameter = 'chain'): ChainConfig {
  return ctx.services.registry.require(key, parameter);
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
  const known = ctx.services.registry.symbols();
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

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** An address as the store keeps it (lower case), or 400 naming the parameter. */
export function resolveAddress(text: string, parameter: string): string {
  if (!ADDRESS.test(text))
    throw ApiError.invalid(parameter, `${parameter} must be an address: 0x followed by 40 hex characters.`);
  return text.toLowerCase();
}

/**
 * The pair keys holding a token, named by symbol (any case) or by an address the registry lists:
 * every pair of it with another listed symbol. 400 naming the parameter for a token it does not list.
 */
export function resolveToken(
  ctx: GraphQLContext,
  text: string,
  parameter = 'token',
): { symbol: string; pairs: string[] } {
  const symbols = ctx.services.registry.symbols();
  const symbol = ADDRESS.test(text)
    ? ctx.services.registry
        .list()
        .flatMap((c) => c.tokens)
        .find((t) => t.address.toLowerCase() === text.toLowerCase())?.symbol
    : symbols.get(text.toLowerCase());
  if (!symbol)
    throw ApiError.invalid(
      parameter,
      `${parameter} must be a token symbol or address that /api/chains lists.`,
    );
  const pairs = [...new Set(symbols.values())]
    .filter((s) => s !== symbol)
    .map((other) => pairKeyOf(symbol, other));
  return { symbol, pairs };
}

/** An instant Postgres reads as written (years 1 to 9999), as ISO 8601 UTC, or 400 naming the parameter. */
export function resolveInstant(text: string, parameter: string): string {
  const ms = Date.parse(text);
  const year = Number.isNaN(ms) ? Number.NaN : new Date(ms).getUTCFullYear();
  if (!(year >= 1 && year <= 9999))
    throw ApiError.invalid(parameter, `${parameter} must be an ISO 8601 date-time from year 1 to 9999.`);
  return new Date(ms).toISOString();
}
