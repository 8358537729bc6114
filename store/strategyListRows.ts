/**
 * What a strategy list page reads, row by row: the projections (which columns a page selects) and the
 * mapping of a result row, read as an array, to one listed strategy.
 */
import { LIST_COLUMNS, LIST_FIELDS, type StrategyRow } from './catalogue.js';

const LIST_NAMES = [...LIST_FIELDS.map(([name]) => name), 'list_json', 'list_digest', 'sort_value'] as const;

/**
 * What a list reads. `full`: every column (the typed GraphQL fields walk them). `summaries`: the
 * rendered entry (`list_json`, migration 006) and its digest (`list_digest`, 018), the columns a reader
 * adds to it and the sort key; a row without a rendered entry brings its columns as one JSON array
 * (`columns`, LIST_FIELDS order) instead. Seven columns instead of thirty: pg describes and decodes every column of every result, and on a
 * page of rendered entries the others were only NULLs to skip (bench/catalogue.ts).
 */
export type ListProjection = 'full' | 'summaries';

const SUMMARY_KEPT = ['chain_key', 'strategy_hash', 'app'] as const;
export const LIST_SELECT: Record<ListProjection, string> = {
  full: `${LIST_COLUMNS}, list_json, list_digest`,
  summaries: `${SUMMARY_KEPT.join(', ')}, list_json, list_digest, CASE WHEN list_json IS NULL THEN json_build_array(${LIST_FIELDS.map(([, expression]) => expression).join(', ')})::text END AS columns`,
};

/**
 * A list row read as an array (rowMode 'array', columns in LIST_FIELDS order, from `offset`) into one
 * object literal: pg's own per-row objects, or keys assigned in a loop, give dictionary-mode objects
 * that cost more to build and to serialise than the query itself on a busy page (bench/catalogue.ts).
 */
function listedRow(
  v: readonly unknown[],
  o: number,
  listJson: string | null,
  listDigest: string | null,
  sortValue: string | number,
): ListedStrategy {
  return {
    chain_key: v[o] as string,
    strategy_hash: v[o + 1] as string,
    maker: v[o + 2] as string,
    app: v[o + 3] as string,
    token_a: v[o + 4] as string | null,
    token_b: v[o + 5] as string | null,
    symbol_a: v[o + 6] as string | null,
    symbol_b: v[o + 7] as string | null,
    decimals_a: v[o + 8] as number | null,
    decimals_b: v[o + 9] as number | null,
    pair_key: v[o + 10] as string | null,
    tokens: v[o + 11],
    initial_a: v[o + 12] as string | null,
    initial_b: v[o + 13] as string | null,
    balance_a: v[o + 14] as string | null,
    balance_b: v[o + 15] as string | null,
    status: v[o + 16] as StrategyRow['status'],
    shipped_block: v[o + 17] as string,
    shipped_tx: v[o + 18] as string,
    shipped_at: v[o + 19] as string,
    docked_block: v[o + 20] as string | null,
    docked_at: v[o + 21] as string | null,
    volume_usd: v[o + 22] as number,
    swap_count: v[o + 23] as number,
    last_swap_at: v[o + 24] as string | null,
    kind: v[o + 25] as StrategyRow['kind'],
    range_program: v[o + 26],
    fees_7d_usd: v[o + 27] as number,
    apy_7d: v[o + 28] as number | null,
    state: v[o + 29] as StrategyRow['state'],
    list_json: listJson,
    list_digest: listDigest,
    sort_value: sortValue,
  };
}
// The literal above reads the columns by position: it must name them in the order of the select list.
if (Object.keys(listedRow([], 0, null, null, 0)).join() !== LIST_NAMES.join())
  throw new Error('listedRow is out of step with LIST_FIELDS');

/** The columns of a summaries row whose entry is rendered: none read but SUMMARY_KEPT (null). */
const UNREAD: readonly null[] = LIST_FIELDS.map(() => null);
// rowOf sets SUMMARY_KEPT's columns by name, in this order.
if (SUMMARY_KEPT.join() !== 'chain_key,strategy_hash,app')
  throw new Error('rowOf is out of step with SUMMARY_KEPT');

/** A result row of `projection` (after `offset` leading columns) as a listed strategy. */
export function rowOf(projection: ListProjection, row: readonly unknown[], offset: number): ListedStrategy {
  if (projection === 'full') {
    // LIST_FIELDS, then list_json, list_digest and sort_value
    const n = offset + LIST_FIELDS.length;
    return listedRow(
      row,
      offset,
      row[n] as string | null,
      row[n + 1] as string | null,
      row[n + 2] as string | number,
    );
  }
  // SUMMARY_KEPT, then list_json, list_digest, columns and sort_value
  const n = offset + SUMMARY_KEPT.length;
  const listJson = row[n] as string | null;
  const listDigest = row[n + 1] as string | null;
  const columns = row[n + 2] as string | null;
  const sortValue = row[n + 3] as string | number;
  if (columns !== null)
    return listedRow(JSON.parse(columns) as unknown[], 0, listJson, listDigest, sortValue);
  // `columns` is null only where list_json is not (the CASE of LIST_SELECT): the entry, and the columns
  // the reader adds to it, set on a row of nulls (the same fields as every other row: one object shape).
  const rendered = listedRow(UNREAD, 0, listJson, listDigest, sortValue);
  rendered.chain_key = row[offset] as string;
  rendered.strategy_hash = row[offset + 1] as string;
  rendered.app = row[offset + 2] as string;
  return rendered;
}

export interface ListedStrategy extends StrategyRow {
  /**
   * The entry as the list shows it, rendered by the store (migration 006) without chainId and
   * verifiedRouter; null where the columns must build it. With the `summaries` projection the other
   * columns are null wherever this is not.
   */
  list_json: string | null;
  /** md5 of `list_json` (migration 018), null where it is: what the list's ETag hashes instead of it. */
  list_digest: string | null;
  /** The sort key of this row as the cursor carries it. */
  sort_value: string | number;
}
