/**
 * `simulate` of the prepared-transaction paths: a query parameter on every one of them (`true` or
 * `false`), and a body field on those with a body (POST /v1/positions, POST /v1/swaps). Without it an
 * answer is exactly what it was before the parameter existed: the members it adds are dropped when null.
 */
import { z } from 'zod';
import { ApiError } from '../lib/errors.js';
import { queryParam, type RouteContext } from './route.js';

export const simulateQuery = {
  // Described in docs/api (`### Parameters`), as every query parameter.
  simulate: z.enum(['true', 'false'], { error: 'must be true or false' }).optional(),
};

/** The query's `simulate`, with the body's when the body has one: 400 naming `simulate` when they differ. */
export function simulateOf(ctx: RouteContext, body?: boolean): boolean {
  const raw = queryParam(ctx, simulateQuery, 'simulate');
  const query = raw === undefined ? undefined : raw === 'true';
  if (query !== undefined && body !== undefined && query !== body) {
    throw ApiError.invalid(
      'simulate',
      'simulate: the query parameter and the body field disagree; send one.',
    );
  }
  return query ?? body ?? false;
}

/** The answer without the simulation's members when they are null (no `simulate`, or not simulated). */
export function withoutNull<T extends object, K extends keyof T & string>(data: T, keys: readonly K[]) {
  const drop = new Set<string>(keys);
  // In place: the members after a dropped one keep their order (the contract checks it).
  const kept = Object.entries(data).filter(([key, value]) => !(value === null && drop.has(key)));
  return Object.fromEntries(kept) as Omit<T, K> & Partial<{ [P in K]: NonNullable<T[P]> }>;
}
