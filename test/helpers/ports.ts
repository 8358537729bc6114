/**
 * Fixed ports of the suites (anvil chains, proxies, servers of their own). Several files run at once
 * (vitest.config.ts), each in a worker with its own pool id, so every worker's ports sit in a block of
 * their own (18645-20310 for the first, 2000 higher for each next pool id, below 32768 where the
 * kernel's ephemeral ports begin); TEST_PORT_OFFSET moves all blocks, so that two checkouts on one
 * machine can run suites at the same time without meeting on a port (the moved blocks then reach into
 * the ephemeral range, where a port may now and then be taken).
 */
const WORKER_BLOCK = 2_000;

export function testPort(port: number): number {
  const offset = Number(process.env.TEST_PORT_OFFSET ?? 0);
  const pool = Number(process.env.VITEST_POOL_ID ?? 1);
  const total = offset + (Number.isInteger(pool) && pool > 1 ? (pool - 1) * WORKER_BLOCK : 0);
  if (!Number.isInteger(offset) || offset < 0 || port + total > 65_000)
    throw new Error(`TEST_PORT_OFFSET must be a whole number that keeps ports under 65000`);
  return port + total;
}
