import { describe, expect, it } from 'vitest';
import {
  concentratedRange,
  humanPriceOf,
  impliedSqrtPrice,
  isqrt,
  linearWidthOf,
  peggedArgs,
  pegRates,
  sqrtPriceOf,
} from '../../chain/strategyArgs.js';

/** The maker arguments of the concentrated and pegged programs, against the protocol notes' examples. */
describe('maker arguments of the concentrated and pegged programs', () => {
  const sixSix = { lt: 6, gt: 6 };

  it('takes a range of Gt per Lt to sqrt bounds as the SDK does (0.9…1.1)', () => {
    // The first deposit (the quote) is Gt: prices of Lt in Gt.
    expect(concentratedRange('0.9', '1.1', { ...sixSix, firstIsLt: false })).toEqual({
      sqrtPriceMin: 948683298050513799n,
      sqrtPriceMax: 1048808848170151546n,
    });
  });

  it('inverts a range quoted in Lt (2000…3000): the human min becomes sqrtPriceMax', () => {
    expect(concentratedRange('2000', '3000', { ...sixSix, firstIsLt: true })).toEqual({
      sqrtPriceMin: 18257418583505537n,
      sqrtPriceMax: 22360679774997896n,
    });
    expect(sqrtPriceOf('2000', { ...sixSix, firstIsLt: true })).toBe(22360679774997896n);
  });

  it('reads a sqrt price back as the human price it came from', () => {
    for (const firstIsLt of [true, false]) {
      const pair = { ...sixSix, firstIsLt };
      expect(humanPriceOf(sqrtPriceOf('0.995', pair), pair)).toBeCloseTo(0.995, 9);
    }
    const mixed = { lt: 18, gt: 6, firstIsLt: false };
    expect(humanPriceOf(sqrtPriceOf('1.25', mixed), mixed)).toBeCloseTo(1.25, 9);
  });

  it('puts the spot implied by balances inside the range, on a bound for a single side', () => {
    const range = concentratedRange('0.995', '1.005', { ...sixSix, firstIsLt: false });
    const spot = impliedSqrtPrice(1_000_000n * 10n ** 6n, 1_000_000n * 10n ** 6n, range);
    expect(spot).toBeGreaterThan(range.sqrtPriceMin);
    expect(spot).toBeLessThan(range.sqrtPriceMax);
    expect(Number(spot) / 1e18).toBeCloseTo(1, 3);
    expect(impliedSqrtPrice(0n, 5n, range)).toBe(range.sqrtPriceMax);
    expect(impliedSqrtPrice(5n, 0n, range)).toBe(range.sqrtPriceMin);
  });

  it('derives pegged rates, the band width (±0.2 % → 249.5e27) and x0/y0 from the shipped amounts', () => {
    expect(linearWidthOf(0.2)).toBe(249_500_000_000_000_000_000_000_000_000n);
    expect(pegRates({ lt: 6, gt: 18 })).toEqual({ rateLt: 10n ** 12n, rateGt: 1n });
    expect(pegRates({ lt: 6, gt: 6 })).toEqual({ rateLt: 1n, rateGt: 1n });
    expect(peggedArgs(5n, 7n, { lt: 18, gt: 6 }, 0.2)).toEqual({
      x0: 5n,
      y0: 7n * 10n ** 12n,
      linearWidth: 249_500_000_000_000_000_000_000_000_000n,
      rateLt: 1n,
      rateGt: 10n ** 12n,
    });
    expect(() => linearWidthOf(0)).toThrow();
  });

  it('isqrt is the floor square root', () => {
    for (const n of [0n, 1n, 2n, 3n, 4n, 15n, 16n, 17n, 10n ** 36n - 1n, 10n ** 36n, 2n ** 255n]) {
      const r = isqrt(n);
      expect(r * r <= n && (r + 1n) * (r + 1n) > n).toBe(true);
    }
  });
});
