/**
 * What the generators read of the running service, learnt by the setup (fuzz.test.ts's beforeAll) and
 * passed to them explicitly: the generators are built only once it is complete.
 */
export interface FuzzContext {
  /** The service's port (the runner's sockets, the operator origins). */
  port: number;
  /** Twelve LIVE keys (default scopes), each with one position prepared in setup. */
  liveKeys: string[];
  /** A TEST key. */
  testKey: string;
  /** A LIVE key without scopes. */
  noScopeKey: string;
  /** A LIVE key bound to https://integrator.example. */
  originKey: string;
  /** A revoked LIVE key. */
  revokedKey: string;
  /** Positions prepared in setup: [id, the key that prepared it]. */
  known: [string, string][];
  /** Every strategy hash of the catalogue. */
  strategyHashes: string[];
  /** The USDC/USDT strategies of the chains' routers: [hash, chain]. */
  quotable: [string, string][];
  /** The next-page cursor of /api/strategies?limit=1. */
  cursor: string;
}
