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
    expect(refusal(() => resolveStrategy(xycOnly, { kind: 'pegged' }, deposits, 0))).toEqual([
      422,
      'UNPROCESSABLE',
      'strategy.kind',
      'UNSUPPORTED_STRATEGY_KIND',
    ]);
    expect(resolveStrategy(xycOnly, null, deposits, 0).summary.kind).toBe('xyc');
  });

  it('refuses a flat band narrower than the router allows: 422 naming strategy.flatBandPercent', () => {
    expect(
      refusal(() => resolveStrategy(chain, { kind: 'pegged', flatBandPercent: 0.001 }, deposits, 0)),
    ).toEqual([422, 'UNPROCESSABLE', 'strategy.flatBandPercent', 'INVALID_FLAT_BAND']);
    expect(
      resolveStrategy(chain, { kind: 'pegged', flatBandPercent: 0.02 }, deposits, 0).summary.flatBandPercent,
    ).toBe(0.02);
  });

  it('puts the maker fee after Concentrate and before the curve', () => {
    expect(
      resolveStrategy(
        chain,
        { kind: 'concentrated', priceRange: { min: '0.9', max: '1.1' } },
        deposits,
        30_000,
      ).expectedNames,
    ).toEqual([
      'AquaProtocolFeeAmountIn',
      'XYCConcentrateGrowLiquidity2D',
      'FlatFeeAmountIn',
      'XYCSwap',
      'Salt',
    ]);
  });
});
