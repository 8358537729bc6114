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

/** The first `limit` of `rows` (read as limit + 1) as a connection. */
export function pageConnection<R, T = R>(
  rows: readonly R[],
  limit: number,
  cursorOf: (row: R) => string,
  nodeOf: (row: R) => T = (row) => row as unknown as T,
): Connection<T> {
  const edges = rows.slice(0, limit).map((row) => ({ cursor: cursorOf(row), node: nodeOf(row) }));
  return { edges, pageInfo: { hasNextPage: rows.length > limit, endCursor: edges.at(-1)?.cursor ?? null } };
}

/** A connection's paging arguments as the REST paths name them (`PersistedOperations.run`). */
export const REST_PAGING_NAMES = { first: 'limit', after: 'cursor' } as const;

/** The cursor of the next page as REST shows it: the end cursor, or null on the last page. */
export function nextCursorOf(pageInfo: PageInfo): string | null {
  return pageInfo.hasNextPage ? pageInfo.endCursor : null;
}
