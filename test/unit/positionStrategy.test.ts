import { describe, expect, it } from 'vitest';
import type { ChainConfig } from '../../lib/config.js';
import { isApiError } from '../../lib/errors.js';
import { resolveStrategy } from '../../resolvers/positions/strategy.js';
import { fixtureChains } from '../helpers/catalogue.js';

/** The checks of a position's curve that need no chain: the router's kinds, the band's bounds. */
describe('the curve of a new position', () => {
  const [chain] = fixtureChains(2) as [ChainConfig, ChainConfig];
  const usdc = chain.tokens.find((t) => t.symbol === 'USDC')!;
  const usdt = chain.tokens.find((t) => t.symbol === 'USDT')!;
  const deposits = { first: { token: usdc, amount: 10n ** 9n }, second: { token: usdt, amount: 10n ** 9n } };

  const prices = { USDC: 1, USDT: 1 };

  const refusal = (run: () => unknown) => {
    try {
      run();
    } catch (error) {
      if (isApiError(error))
        return [error.status, error.code, error.parameter, error.issues?.[0]?.type] as const;
      throw error;
    }
    throw new Error('expected a refusal');
  };

  it('refuses a kind the chain says its router does not run: 422 naming strategy.kind', () => {
    const xycOnly = { ...chain, strategyKinds: ['xyc' as const] };
    expect(refusal(() => resolveStrategy(xycOnly, { kind: 'pegged' }, deposits, 0, prices))).toEqual([
      422,
      'UNPROCESSABLE',
      'strategy.kind',
      'UNSUPPORTED_STRATEGY_KIND',
    ]);
    expect(resolveStrategy(xycOnly, null, deposits, 0, prices).summary.kind).toBe('xyc');
  });

  it('refuses a flat band narrower than the router allows: 422 naming strategy.flatBandPercent', () => {
    expect(
      refusal(() => resolveStrategy(chain, { kind: 'pegged', flatBandPercent: 0.001 }, deposits, 0, prices)),
    ).toEqual([422, 'UNPROCESSABLE', 'strategy.flatBandPercent', 'INVALID_FLAT_BAND']);
    expect(
      resolveStrategy(chain, { kind: 'pegged', flatBandPercent: 0.02 }, deposits, 0, prices).summary
        .flatBandPercent,
    ).toBe(0.02);
  });

  it('puts the maker fee after Concentrate and before the curve', () => {
    expect(
      resolveStrategy(
        chain,
        { kind: 'concentrated', priceRange: { min: '0.9', max: '1.1' } },
        deposits,
        30_000,
        prices,
      ).expectedNames,
    ).toEqual([
      'AquaProtocolFeeAmountIn',
      'XYCConcentrateGrowLiquidity2D',
      'FlatFeeAmountIn',
      'XYCSwap',
      'Salt',
    ]);
  });

  describe('a concentrated range against the market price (the configured USD prices)', () => {
    const range = (min: string, max: string) => ({ kind: 'concentrated' as const, priceRange: { min, max } });
    const withSecond = (amount: bigint) => ({ ...deposits, second: { token: usdt, amount } });

    it('refuses a range that does not contain it: 422 naming strategy.priceRange', () => {
      expect(refusal(() => resolveStrategy(chain, range('1.01', '1.05'), deposits, 0, prices))).toEqual([
        422,
        'UNPROCESSABLE',
        'strategy.priceRange',
        'RANGE_OFF_MARKET',
      ]);
    });

    it('refuses deposits that open the range away from it, and the amount it suggests opens at it', () => {
      // 1,000 USDC beside 1,000 USDT open 0.99…1.02 near 1.005: half its width off the market price of 1.
      expect(refusal(() => resolveStrategy(chain, range('0.99', '1.02'), deposits, 0, prices))).toEqual([
        422,
        'UNPROCESSABLE',
        'deposits',
        'DEPOSITS_OFF_MARKET',
      ]);
      let suggested = '';
      try {
        resolveStrategy(chain, range('0.99', '1.02'), deposits, 0, prices);
      } catch (error) {
        suggested = /deposit about ([\d.]+) USDT/.exec((error as Error).message)?.[1] ?? '';
      }
      const fitted = resolveStrategy(
        chain,
        range('0.99', '1.02'),
        withSecond(BigInt(Math.round(Number(suggested) * 1e6))),
        0,
        prices,
      );
      expect(Math.abs(fitted.summary.openingPrice! - 1)).toBeLessThan(1e-4);
    });

    it('opens a range around the market price from deposits that fit it', () => {
      expect(
        resolveStrategy(chain, range('0.98', '1.02'), deposits, 0, prices).summary.openingPrice,
      ).toBeCloseTo(1, 3);
    });

    it('checks nothing for a pair without both prices', () => {
      expect(resolveStrategy(chain, range('1.01', '1.05'), deposits, 0, { USDC: 1 }).summary.kind).toBe(
        'concentrated',
      );
    });
  });
});
