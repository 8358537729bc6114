import { describe, expect, it } from 'vitest';
import { formatCompact, formatCount, formatUsd } from '../../resolvers/catalogue/badge.js';
import { decodeCursor, encodeCursor } from '../../resolvers/catalogue/cursor.js';
import { freshnessSeconds, topPairsByPositions, topPairsByVolume } from '../../resolvers/catalogue/stats.js';
import type { PairRollup } from '../../store/rollups.js';

describe('badge formatting', () => {
  it('formats money like $1.2M, $950K, $12', () => {
    const cases: [number, string][] = [
      [0, '$0'],
      [0.4, '$0.4'],
      [12, '$12'],
      [12.4, '$12'],
      [9.96, '$10'],
      [999, '$999'],
      [999.6, '$1K'],
      [1_234, '$1.2K'],
      [12_345, '$12K'],
      [950_000, '$950K'],
      [999_499, '$999K'],
      [999_999, '$1M'],
      [1_234_567, '$1.2M'],
      [1_250_000, '$1.3M'],
      [12_345_678, '$12M'],
      [1_500_000_000, '$1.5B'],
      [2.5e12, '$2.5T'],
      [-1_234, '-$1.2K'],
      [Number.NaN, '$0'],
    ];
    for (const [value, text] of cases) expect([value, formatUsd(value)]).toEqual([value, text]);
  });

  it('formats counts exactly under 10,000 and compactly above', () => {
    expect(formatCount(0)).toBe('0');
    expect(formatCount(7)).toBe('7');
    expect(formatCount(9_876)).toBe('9,876');
    expect(formatCount(12_345)).toBe('12K');
    expect(formatCount(1_000_000)).toBe('1M');
    expect(formatCompact(1_049)).toBe('1K');
  });
});

describe('list cursors', () => {
  const hash = `0x${'ab'.repeat(32)}`;

  it('round-trips both sorts exactly (microseconds and doubles kept)', () => {
    const recent = { value: '2025-06-01 12:34:56.123456+00', hash, chain: 'base' };
    expect(decodeCursor(encodeCursor('recent', recent), 'recent')).toEqual(recent);
    const volume = { value: 0.1 + 0.2, hash, chain: 'arc' };
    expect(decodeCursor(encodeCursor('volume', volume), 'volume')).toEqual(volume);
  });

  it('refuses a cursor of the other sort and anything it did not issue, naming `cursor`', () => {
    const cursor = encodeCursor('volume', { value: 5, hash, chain: 'base' });
    const bad = [
      () => decodeCursor(cursor, 'recent'),
      () => decodeCursor('%%%', 'recent'),
      () => decodeCursor(Buffer.from('{"a":1}').toString('base64url'), 'recent'),
      () => decodeCursor(Buffer.from('["r","yesterday","0x12","base"]').toString('base64url'), 'recent'),
      () => decodeCursor(Buffer.from(`["v",null,"${hash}","base"]`).toString('base64url'), 'volume'),
    ];
    for (const attempt of bad)
      expect(attempt).toThrow(expect.objectContaining({ code: 'INVALID_PARAMETER', parameter: 'cursor' }));
  });
});

describe('stats helpers', () => {
  const pair = (name: string, count: number, volume: number): PairRollup => ({
    pair: name,
    count,
    chains: ['base'],
    volume_1d_usd: 0,
    volume_7d_usd: 0,
    volume_30d_usd: volume,
    last_activity: null,
  });

  it('ranks pairs by volume and by open positions', () => {
    const pairs = [pair('A/B', 5, 10), pair('B/C', 9, 1), pair('A/C', 1, 100)];
    expect(topPairsByVolume(pairs, 2).map((p) => p.pair)).toEqual(['A/C', 'A/B']);
    expect(topPairsByPositions(pairs, 5).map((p) => p.pair)).toEqual(['B/C', 'A/B', 'A/C']);
  });

  it('gives the age of the roll-up in whole seconds, never negative', () => {
    const now = Date.parse('2025-01-01T00:01:00Z');
    expect(freshnessSeconds(new Date('2025-01-01T00:00:00.500Z'), now)).toBe(59);
    expect(freshnessSeconds('2025-01-01T00:02:00Z', now)).toBe(0);
    expect(freshnessSeconds(null, now)).toBeNull();
  });
});
