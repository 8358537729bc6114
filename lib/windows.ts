const HOUR_MS = 3_600_000;

/**
 * A window of N days is the current (partial) UTC hour and the 24·N − 1 hours before it, so the
 * windows nest: 1d ⊆ 7d ⊆ 30d and volume_1d ≤ volume_7d ≤ volume_30d. The stats roll-up, the maker
 * view, earnings and the leaderboard all count over these.
 */
export function windowStarts(now: Date): { d1: Date; d7: Date; d30: Date } {
  const hour = Math.floor(now.getTime() / HOUR_MS) * HOUR_MS;
  const start = (days: number) => new Date(hour - (days * 24 - 1) * HOUR_MS);
  return { d1: start(1), d7: start(7), d30: start(30) };
}
