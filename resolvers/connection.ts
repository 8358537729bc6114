/**
 * The shape of every paged list of the graph: a Relay cursor connection (forward paging). Lists read
 * one row more than the page (keyset), which tells whether another page follows; each edge carries the
 * cursor that resumes after it, so `pageInfo.endCursor` is the one to pass as `after`. The REST facade
 * shows the same pages as `{ items, page: { nextCursor } }` (`nextCursorOf`).
 */
export interface PageInfo {
  hasNextPage: boolean;
  endCursor: string | null;
}

export interface Edge<T> {
  cursor: string;
  node: T;
}

export interface Connection<T> {
  edges: Edge<T>[];
  pageInfo: PageInfo;
}

/**
 * An edge whose cursor is encoded when it is first read: the graph reads it where a query selects
 * `cursor`, the REST pages only the last one (`nextCursorOf`), and encoding all 20-100 of a page was
 * 3.7% of the list's CPU in its profile (bench/all.ts BENCH_CPU_PROF).
 */
class LazyEdge<R, T> implements Edge<T> {
  private encoded: string | undefined;

  constructor(
    readonly node: T,
    private readonly row: R,
    private readonly cursorOf: (row: R) => string,
  ) {}

  get cursor(): string {
    this.encoded ??= this.cursorOf(this.row);
    return this.encoded;
  }
}

/**
 * The page info of a connection, its end cursor read from the last edge when first asked. A class, not
 * an object literal with a getter: V8 gives each literal's getter an accessor pair of its own, always
 * allocated in the old generation, so until the next mark-compact every scavenge kept the getter's
 * closure alive, and through it the page's rows. Those promotions set off the mark-compacts that decide
 * the list's p99 (test/unit/connection-promotion.test.ts holds the class to it).
 */
class LazyPageInfo<T> implements PageInfo {
  constructor(
    readonly hasNextPage: boolean,
    private readonly last: Edge<T> | undefined,
  ) {}

  get endCursor(): string | null {
    return this.last?.cursor ?? null;
  }
}

/** The first `limit` of `rows` (read as limit + 1) as a connection. */
export function pageConnection<R, T = R>(
  rows: readonly R[],
  limit: number,
  cursorOf: (row: R) => string,
  nodeOf: (row: R) => T = (row) => row as unknown as T,
): Connection<T> {
  const edges: Edge<T>[] = rows.slice(0, limit).map((row) => new LazyEdge(nodeOf(row), row, cursorOf));
  return { edges, pageInfo: new LazyPageInfo(rows.length > limit, edges.at(-1)) };
}

/** A connection's paging arguments as the REST paths name them (`PersistedOperations.run`). */
export const REST_PAGING_NAMES = { first: 'limit', after: 'cursor' } as const;

/** The cursor of the next page as REST shows it: the end cursor, or null on the last page. */
export function nextCursorOf(pageInfo: PageInfo): string | null {
  return pageInfo.hasNextPage ? pageInfo.endCursor : null;
}
