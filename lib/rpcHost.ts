/**
 * The host label of an RPC endpoint (host and port only): what metrics may name of a URL, whose path or
 * query often carries a provider's key.
 */
export function rpcHostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'invalid';
  }
}
