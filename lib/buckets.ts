/** Rate-limit buckets of SPEC §8: fixed 60 s windows. */
export const WINDOW_SECONDS = 60;

export const BUCKET_LIMITS = {
  stats: 120,
  badge: 120,
  chains: 60,
  quote: 60,
  'strategy-detail': 60,
  strategies: 20,
  pilot: 30,
  balances: 30,
  /** POST /v1/positions: per key, at the key's agreed limit; this is the default. */
  prepare: 6,
  /**
   * SPEC §8 `ship, swap (write)`: per key, shared by every path that prepares a transaction against a
   * live position: POST /v1/positions/{id}/dock, POST /v1/positions/{id}/approvals, POST /v1/swaps;
   * at the key's agreed limit (writeLimitPerMinute); this is the default.
   */
  write: 6,
  /** GET /v1/positions/{id}: per key. SPEC §8 lists no bucket for it; reads of one's own positions. */
  positions: 60,
  /** GET /api/events: per client, each connect (a stream open for hours counts once). */
  events: 30,
  /** /v1/webhooks and its sub-paths: per key, every method. */
  webhooks: 30,
  /** The reference (/docs, /docs/errors/*, /openapi.json): per client. */
  docs: 120,
  /** The operator page and its assets (/, /demo, /web/*): per client. */
  web: 120,
  /**
   * POST /mcp itself, per client: each request (a batch, a tools/list); a tool call also counts in its
   * REST path's own bucket.
   */
  mcp: 600,
  /** POST /graphql, internal analytics and administration: per client, before the token check. */
  graphql: 600,
  /**
   * Paths that are not endpoints (404s) and requests node refuses before routing (an unparseable or
   * oversized head): per client, so scanning is throttled too.
   */
  other: 120,
} as const;

export type Bucket = keyof typeof BUCKET_LIMITS;

export function policyHeader(bucket: Bucket, limit: number): string {
  return `${bucket};w=${WINDOW_SECONDS};limit=${limit}`;
}
