/**
 * GET /v1/positions: the positions of the calling key, newest first, keyset-paginated with
 * the strategy list's cursor rules (resolvers/catalogue/cursor.ts): an opaque cursor checked field by
 * field before any SQL, anything else 400 naming `cursor`.
 */
import { type ListedPosition, shapePosition } from '../../domain/positions.js';
import { ApiError } from '../../lib/errors.js';
import type { Db } from '../../store/db.js';
import { type ListedPositionRow, listPositionsOfKey, type PositionState } from '../../store/positionList.js';
import { UNAUTHORIZED_MESSAGE } from '../apiKeys.js';
import { timeKeysetCursor } from '../catalogue/cursor.js';
import { type Connection, pageConnection } from '../connection.js';
import type { GraphQLContext } from '../context.js';

export const POSITION_STATES = ['prepared', 'shipped', 'filled', 'docked'] as const;
export const POSITIONS_MAX_LIMIT = 100;
export const POSITIONS_DEFAULT_LIMIT = 20;
const STORED_HASH = /^0x[0-9a-f]{64}$/;
const WALLET = /^0x[0-9a-fA-F]{40}$/;
const CURSOR_CODE = 'p';

export interface PositionListArgs {
  status?: string | null;
  chain?: string | null;
  wallet?: string | null;
  cursor?: string | null;
  limit?: number | null;
}

type Keyset = { at: string; hash: string };

const positionCursor = timeKeysetCursor(CURSOR_CODE, STORED_HASH);

export const encodePositionCursor = positionCursor.encode;

/** The keyset a cursor carries; anything but a cursor this service issued is 400 naming `cursor`. */
function decodePositionCursor(cursor: string): Keyset {
  const { at, id } = positionCursor.decode(cursor);
  return { at, hash: id };
}

/** The filters checked before any SQL: each refusal is 400 naming its parameter. */
export function positionFilters(ctx: GraphQLContext, args: PositionListArgs) {
  let status: PositionState | undefined;
  if (args.status !== undefined && args.status !== null) {
    if (!(POSITION_STATES as readonly string[]).includes(args.status))
      throw ApiError.invalid('status', `status must be one of ${POSITION_STATES.join(', ')}.`);
    status = args.status as PositionState;
  }
  let chain: string | undefined;
  if (args.chain !== undefined && args.chain !== null) {
    chain = ctx.services.registry.require(args.chain, 'chain').key;
  }
  let wallet: string | undefined;
  if (args.wallet !== undefined && args.wallet !== null) {
    if (!WALLET.test(args.wallet)) throw ApiError.invalid('wallet', 'wallet must match ^0x[a-fA-F0-9]{40}$.');
    wallet = args.wallet.toLowerCase();
  }
  return { status, chain, wallet };
}

/** One row as the list and the export show it: the status shaping of GET /v1/positions/{id}, with metadata. */
export function listedPosition(ctx: GraphQLContext, row: ListedPositionRow): ListedPosition {
  return { ...shapePosition(ctx.services.registry, row), metadata: row.metadata };
}

function keyIdOf(ctx: GraphQLContext): string {
  if (!ctx.apiKey) throw new ApiError('UNAUTHORIZED', UNAUTHORIZED_MESSAGE);
  return ctx.apiKey.keyId;
}

export async function listPositions(
  ctx: GraphQLContext,
  args: PositionListArgs,
): Promise<Connection<ListedPosition>> {
  const keyId = keyIdOf(ctx);
  const limit = args.limit ?? POSITIONS_DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > POSITIONS_MAX_LIMIT)
    throw ApiError.invalid('limit', `limit must be an integer from 1 to ${POSITIONS_MAX_LIMIT}.`);
  const filters = positionFilters(ctx, args);
  const after =
    args.cursor === undefined || args.cursor === null ? undefined : decodePositionCursor(args.cursor);
  // One row more than the page tells whether another page follows.
  const rows = await listPositionsOfKey(ctx.services.db, keyId, { ...filters, after, limit: limit + 1 });
  return pageConnection(
    rows,
    limit,
    (row) => encodePositionCursor(row.cursor_at, row.strategy_hash),
    (row) => listedPosition(ctx, row),
  );
}

/**
 * Every position of the key matching `filters`, page by page (keyset, `batch` rows a query, on `db`:
 * the export's own pool), as stored rows (`listedPosition` shapes each): the export holds one page at
 * a time, never the whole set, and shapes it in slices.
 */
export async function* eachPosition(
  ctx: GraphQLContext,
  filters: ReturnType<typeof positionFilters>,
  options: { batch: number; db: Db },
): AsyncGenerator<ListedPositionRow[]> {
  const keyId = keyIdOf(ctx);
  const { batch, db } = options;
  let after: Keyset | undefined;
  for (;;) {
    const rows = await listPositionsOfKey(db, keyId, { ...filters, after, limit: batch });
    if (rows.length > 0) yield rows;
    const last = rows[rows.length - 1];
    if (rows.length < batch || !last) return;
    after = { at: last.cursor_at, hash: last.strategy_hash };
  }
}
