import fc from 'fast-check';
import { type Address, encodeAbiParameters, encodeErrorResult, getAddress, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { quoteExactIn } from '../../chain/math.js';
import { AQUA_TRAITS } from '../../chain/order.js';
import {
  aquaProtocolFeeAmountIn,
  buildProgram,
  encodeInstruction,
  flatFeeAmountIn,
  salt,
  xycSwap,
} from '../../chain/program.js';
import { decodeRevert, routerErrorsAbi } from '../../chain/revert.js';
import { simulationCalldata, simulationTemplate, swapSimulationTemplate } from '../../chain/simulate.js';
import { exactInTakerTraits } from '../../chain/takerTraits.js';
import { ApiError } from '../../lib/errors.js';
import { parseQuoteAmount } from '../../resolvers/quote.js';
import { programFees } from '../../resolvers/quoteFees.js';
import { seeds } from '../helpers/seeds.js';

const receiver = '0x00000000000000000000000000000000000000fe' as Address;
const chain = {
  key: 'x',
  multicall: '0x00000000000000000000000000000000000000a1',
  router: '0x00000000000000000000000000000000000000a2',
  aqua: '0x00000000000000000000000000000000000000a3',
};

function program(flatFee1e9: number): Hex {
  return buildProgram([
    aquaProtocolFeeAmountIn(500_000, receiver),
    ...(flatFee1e9 > 0 ? [flatFeeAmountIn(flatFee1e9)] : []),
    xycSwap(),
    salt(7n),
  ]);
}

/** One strategy and direction, as the templates are built for. */
const params = {
  order: {
    maker: '0x00000000000000000000000000000000000000b1' as Address,
    traits: AQUA_TRAITS,
    data: program(3000),
  },
  strategyHash: `0x${'cd'.repeat(32)}` as Hex,
  tokenIn: '0x00000000000000000000000000000000000000c1' as Address,
  tokenOut: '0x00000000000000000000000000000000000000c2' as Address,
  takerTraits: exactInTakerTraits(),
};

describe('simulation calldata', () => {
  it('the template gives the same bytes as a full encoding, for any amount', () => {
    const template = simulationTemplate(chain, params);
    for (const amount of [1n, 1_000_000n, 123_456_789_012_345n, (1n << 256n) - 1n]) {
      expect(template(amount)).toBe(simulationCalldata(chain, { ...params, amount }));
    }
    expect(() => template(1n << 256n)).toThrow(RangeError);
  });

  it.each(seeds())(
    "a swap's template gives the same bytes as a full encoding, for any amount and taker (seed %i)",
    (seed) => {
      const template = swapSimulationTemplate(chain, params);
      fc.assert(
        fc.property(
          fc.bigInt({ min: 1n, max: (1n << 256n) - 1n }),
          fc.uint8Array({ minLength: 20, maxLength: 20 }),
          (amount, bytes) => {
            const taker = getAddress(`0x${Buffer.from(bytes).toString('hex')}`);
            const full = simulationCalldata(chain, { ...params, amount, taker });
            expect(template(amount, taker)).toBe(full);
            expect(template(amount, taker.toLowerCase() as Address)).toBe(full);
          },
        ),
        { seed, numRuns: 200 },
      );
      // The taker's legs are there: not the quote's calldata.
      const taker = '0x00000000000000000000000000000000000000d1' as Address;
      expect(template(5n, taker)).not.toBe(simulationTemplate(chain, params)(5n));
      expect(() => template(5n, '0x1234' as Address)).toThrow(RangeError);
      expect(() => template(-1n, taker)).toThrow(RangeError);
    },
  );
});

describe('programFees', () => {
  it.each(seeds())(
    'matches the router arithmetic of PROTOCOL.md (protocol fee down, maker fee up) (seed %i)',
    (seed) => {
      fc.assert(
        fc.property(
          fc.bigInt({ min: 1n, max: 10n ** 30n }),
          fc.integer({ min: 0, max: 50_000_000 }),
          (amount, flat) => {
            const fees = programFees(program(flat), amount);
            const expected = quoteExactIn({
              amountIn: amount,
              balanceIn: 1n,
              balanceOut: 1n,
              protocolFee1e9: 500_000,
              flatFee1e9: flat,
            });
            expect(fees.protocolFee.amount).toBe(expected.protocolFee.toString());
            if (flat === 0) expect(fees.makerFee).toBeNull();
            else expect(fees.makerFee?.amount).toBe(expected.flatFee.toString());
          },
        ),
        { seed },
      );
    },
  );

  it('states the rates on both scales', () => {
    const fees = programFees(program(30_000_000), 10_000_000n);
    expect(fees.protocolFee).toEqual({ amount: '5000', fee1e9: 500_000, bps: 5000, percent: '0.05' });
    expect(fees.makerFee).toEqual({ amount: '299850', fee1e9: 30_000_000, bps: 300_000, percent: '3' });
    expect(programFees(program(100_000), 1_000_000n).makerFee?.percent).toBe('0.01');
    expect(programFees(program(123), 1_000_000n).makerFee?.percent).toBe('0.0000123');
  });

  it('ignores instructions after the curve and a program without fees', () => {
    const none = programFees(buildProgram([xycSwap(), flatFeeAmountIn(1000)]), 1_000_000n);
    expect(none.protocolFee).toEqual({ amount: '0', fee1e9: 0, bps: 0, percent: '0' });
    expect(none.makerFee).toBeNull();
    // Any curve of the router table ends the fee walk, PeggedSwap (31) as well as XYCSwap (17).
    const pegged = encodeInstruction('PeggedSwapGrowPriceRange2D', {
      x0: 1n,
      y0: 1n,
      linearWidth: 0n,
      rateLt: 1n,
      rateGt: 1n,
    });
    const afterPegged = programFees(
      buildProgram([aquaProtocolFeeAmountIn(500_000, receiver), pegged, flatFeeAmountIn(1000)]),
      1_000_000n,
    );
    expect(afterPegged.protocolFee.amount).toBe('500');
    expect(afterPegged.makerFee).toBeNull();
  });
});

describe('decodeRevert', () => {
  it('names custom errors, panics and Error(string), and keeps unknown selectors', () => {
    const zero = decodeRevert(
      encodeErrorResult({
        abi: routerErrorsAbi,
        errorName: 'TakerTraitsAmountOutMustBeGreaterThanZero',
        args: [0n],
      }),
    );
    expect(zero).toMatchObject({
      name: 'TakerTraitsAmountOutMustBeGreaterThanZero',
      hint: expect.stringMatching(/rounds to 0/),
    });
    const inactive = decodeRevert(
      encodeErrorResult({
        abi: routerErrorsAbi,
        errorName: 'PushToNonActiveStrategyPrevented',
        args: [chain.aqua as Address, chain.router as Address, `0x${'11'.repeat(32)}`, chain.aqua as Address],
      }),
    );
    expect(inactive.reason).toBe(
      `PushToNonActiveStrategyPrevented(${getAddress(chain.aqua)}, ${getAddress(chain.router)}, 0x${'11'.repeat(32)}, ${getAddress(chain.aqua)})`,
    );
    const panic = decodeRevert(`0x4e487b71${encodeAbiParameters([{ type: 'uint256' }], [17n]).slice(2)}`);
    expect(panic).toMatchObject({
      name: 'Panic',
      reason: 'Panic(17)',
      hint: expect.stringMatching(/overflow/),
    });
    const message = decodeRevert(`0x08c379a0${encodeAbiParameters([{ type: 'string' }], ['nope']).slice(2)}`);
    expect(message).toMatchObject({ name: 'Error', hint: 'nope' });
    expect(decodeRevert('0xdeadbeef').reason).toBe('unrecognised revert (selector 0xdeadbeef)');
    expect(decodeRevert('0x').reason).toBe('reverted without a reason');
    expect(decodeRevert(undefined).name).toBeNull();
  });
});

describe('parseQuoteAmount', () => {
  it('takes positive integers within uint256 and names amount otherwise', () => {
    expect(parseQuoteAmount('1')).toBe(1n);
    expect(parseQuoteAmount(((1n << 256n) - 1n).toString())).toBe((1n << 256n) - 1n);
    for (const bad of ['0', '', '-1', '1.0', '1e3', '0x1', ' 1', (1n << 256n).toString(), '9'.repeat(79)]) {
      const error = (() => {
        try {
          parseQuoteAmount(bad);
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).parameter).toBe('amount');
    }
  });
});
