/**
 * Fixed ports of the suites (anvil chains, proxies, servers of their own), moved by TEST_PORT_OFFSET so
 * that two checkouts on one machine can run suites at the same time without meeting on a port.
 */
export function testPort(port: number): number {
  const offset = Number(process.env.TEST_PORT_OFFSET ?? 0);
  if (!Number.isInteger(offset) || offset < 0 || port + offset > 65_000)
    throw new Error(`TEST_PORT_OFFSET must be a whole number that keeps ports under 65000`);
  return port + offset;
}
