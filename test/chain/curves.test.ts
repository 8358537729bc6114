/**
 * The devnet router's Aqua opcode table on a real anvil, against values computed independently from
 * the documented formulas (test/helpers/curveModel.ts): concentrated ranges, the pegged curve, Decay,
 * Deadline, Jump and the fees in both exact modes, with their edges and reference revert encodings.
 */
import { decodeFunctionResult, encodeAbiParameters, type Hex, toFunctionSelector } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routerAbi } from '../../chain/abi.js';
import { quoteCalldata, swapCalldata } from '../../chain/calldata.js';
import type { Order } from '../../chain/order.js';
import {
  aquaProtocolFeeAmountIn,
  deadline,
  encodeInstruction,
  flatFeeAmountIn,
  PROTOCOL_FEE_1E9,
  salt,
  xycSwap,
} from '../../chain/program.js';
import { encodeTakerTraits, exactInTakerTraits, TAKER_FLAGS } from '../../chain/takerTraits.js';
import {
  ceilDiv,
  concentrate,
  decayValue,
  E18,
  E27,
  type Fees,
  feesIn,
  feesOut,
  isqrt,
  type PegArgs,
  peggedIn,
  peggedOut,
  Revert,
  xycIn,
  xycOut,
} from '../helpers/curveModel.js';
import { testPort } from '../helpers/ports.js';
import { type RouterChain, startRouterChain } from '../helpers/routerChain.js';

const UNIT = 1_000_000n; // 6 decimals
const FLAT = 3_000_000n; // 0.3% on the 1e9 scale
const FEES: Fees = { protocol: BigInt(PROTOCOL_FEE_1E9), flat: FLAT };
/** ±0.5% around 1:1 for two 6-decimal tokens: sqrtPrice = isqrt(R·1e18) for R = P·1e18, P 0.995 and 1.005. */
const RANGE = { sqrtPriceMin: isqrt(995n * 10n ** 15n * E18), sqrtPriceMax: isqrt(1005n * 10n ** 15n * E18) };
const exactOutTraits = () => encodeTakerTraits({ flags: TAKER_FLAGS.useTransferFromAndAquaPush });

let rc: RouterChain;
let saltCounter = 0n;

beforeAll(async () => {
  rc = await startRouterChain({ port: testPort(18665) });
});

afterAll(async () => {
  await rc?.stop();
});

const feeInstructions = (fees: Fees): Hex[] => [
  ...(fees.protocol > 0n
    ? [aquaProtocolFeeAmountIn(Number(fees.protocol), rc.accounts.receiver.address)]
    : []),
  ...(fees.flat > 0n ? [flatFeeAmountIn(Number(fees.flat))] : []),
];
const concentrateOf = (range: { sqrtPriceMin: bigint; sqrtPriceMax: bigint }) =>
  encodeInstruction('XYCConcentrateGrowLiquidity2D', range);
const peggedOf = (args: PegArgs) => encodeInstruction('PeggedSwapGrowPriceRange2D', { ...args });

/** A fresh order (unique salt) over the instructions. */
const order = (instructions: Hex[]): Order => rc.orderWith([...instructions, salt(++saltCounter)]);

function quoteData(o: Order, inIsLt: boolean, amount: bigint, traits: Hex = exactInTakerTraits()): Hex {
  const [tokenIn, tokenOut] = inIsLt ? [rc.addr.lt, rc.addr.gt] : [rc.addr.gt, rc.addr.lt];
  return quoteCalldata({ order: o, tokenIn, tokenOut, amount, takerTraits: traits });
}

/** [amountIn, amountOut] the router quotes, or the revert's name. */
async function quote(
  o: Order,
  inIsLt: boolean,
  amount: bigint,
  exactIn = true,
): Promise<[bigint, bigint] | string> {
  const answer = await rc.call(
    quoteData(o, inIsLt, amount, exactIn ? exactInTakerTraits() : exactOutTraits()),
  );
  if (answer.revert !== undefined) return revertName(answer.revert);
  const [amountIn, amountOut] = decodeFunctionResult({
    abi: routerAbi,
    functionName: 'quote',
    data: answer.result!,
  });
  return [amountIn, amountOut];
}

/** Sends a taker's swap of tokenLt for tokenGt against `o`, as the router takes it. */
function swapLtToGt(o: Order, amount: bigint, takerTraits: Hex = exactInTakerTraits()) {
  return rc.send(
    rc.accounts.taker,
    rc.addr.router,
    swapCalldata({ order: o, tokenIn: rc.addr.lt, tokenOut: rc.addr.gt, amount, takerTraits }),
  );
}

const PANIC = toFunctionSelector('function Panic(uint256)');
function revertName(data: Hex): string {
  if (data.startsWith(PANIC)) return `Panic(0x${BigInt(`0x${data.slice(10)}`).toString(16)})`;
  return data.slice(0, 10);
}
const selector = (signature: string) => toFunctionSelector(`function ${signature}`);

/** What the model says a quote answers: [amountIn, amountOut] or the revert's name. */
function model(run: () => [bigint, bigint]): [bigint, bigint] | string {
  try {
    return run();
  } catch (error) {
    if (error instanceof Revert)
      return error.reason === 'PeggedSwapMathInvalidInput'
        ? selector('PeggedSwapMathInvalidInput()')
        : error.reason;
    throw error;
  }
}

describe('XYCConcentrateGrowLiquidity2D', () => {
  const shipped: [bigint, bigint] = [1_000_000n * UNIT, 1_000_000n * UNIT];

  it('quotes exactIn and exactOut in both directions as the documented formulas, fees included', async () => {
    const o = order([...feeInstructions(FEES), concentrateOf(RANGE), xycSwap()]);
    await rc.ship(o, shipped);
    const [bLt, bGt] = shipped;
    for (const inIsLt of [true, false]) {
      const [bi, bo] = inIsLt ? [bLt, bGt] : [bGt, bLt];
      const { vIn, vOut } = concentrate(bi, bo, inIsLt, RANGE.sqrtPriceMin, RANGE.sqrtPriceMax);
      for (const amount of [1n, 1_999n, 2_000n, 1_000n * UNIT, 100_000n * UNIT, 900_000n * UNIT]) {
        const expectIn = model(() => [amount, xycOut(feesIn(amount, FEES).net, vIn, vOut)]);
        expect([inIsLt, amount, await quote(o, inIsLt, amount)]).toEqual([
          inIsLt,
          amount,
          expectIn[1] === 0n ? selector('TakerTraitsAmountOutMustBeGreaterThanZero(uint256)') : expectIn,
        ]);
        const expectOut = model(() => [feesOut(xycIn(amount, vIn, vOut), FEES).gross, amount]);
        expect([inIsLt, amount, 'out', await quote(o, inIsLt, amount, false)]).toEqual([
          inIsLt,
          amount,
          'out',
          expectOut,
        ]);
      }
    }
  });

  it('prices a ±0.5% range far tighter than x·y=k over the same deposit', async () => {
    const concentrated = order([...feeInstructions(FEES), concentrateOf(RANGE), xycSwap()]);
    const plain = order([...feeInstructions(FEES), xycSwap()]);
    await rc.ship(concentrated, shipped);
    await rc.ship(plain, shipped);
    const amount = 100_000n * UNIT;
    const [, tight] = (await quote(concentrated, true, amount)) as [bigint, bigint];
    const [, loose] = (await quote(plain, true, amount)) as [bigint, bigint];
    // x·y=k loses ~9% at a tenth of the pool; the range keeps within its half percent (plus fees).
    expect(loose).toBeLessThan((amount * 92n) / 100n);
    expect(tight).toBeGreaterThan((amount * 99n) / 100n);
  });

  it('swaps at the quote and leaves bi − p + a and bo − out; L grows by the fees kept', async () => {
    const o = order([...feeInstructions(FEES), concentrateOf(RANGE), xycSwap()]);
    const hash = await rc.ship(o, shipped);
    const amount = 50_000n * UNIT;
    const [, out] = (await quote(o, true, amount)) as [bigint, bigint];
    const receipt = await swapLtToGt(o, amount);
    expect(receipt.status).toBe('success');
    const { protocolFee } = feesIn(amount, FEES);
    expect(await rc.balance(hash, rc.addr.lt)).toBe(shipped[0] - protocolFee + amount);
    expect(await rc.balance(hash, rc.addr.gt)).toBe(shipped[1] - out);
    const before = concentrate(
      shipped[0],
      shipped[1],
      true,
      RANGE.sqrtPriceMin,
      RANGE.sqrtPriceMax,
    ).liquidity;
    const after = concentrate(
      shipped[0] - protocolFee + amount,
      shipped[1] - out,
      true,
      RANGE.sqrtPriceMin,
      RANGE.sqrtPriceMax,
    );
    expect(after.liquidity).toBeGreaterThan(before);
  });

  it('quotes past the range edge (out > bo) while the swap reverts; the documented cap is the last input that pays', async () => {
    const small: [bigint, bigint] = [1_000n * UNIT, 1_000n * UNIT];
    const o = order([concentrateOf(RANGE), xycSwap()]);
    const hash = await rc.ship(o, small);
    const { vIn, vOut } = concentrate(small[0], small[1], true, RANGE.sqrtPriceMin, RANGE.sqrtPriceMax);
    const bo = small[1];
    const cap = ceilCap(bo, vIn, vOut);
    expect(xycOut(cap, vIn, vOut)).toBeLessThanOrEqual(bo);
    expect(xycOut(cap + 1n, vIn, vOut)).toBeGreaterThan(bo);
    expect(await quote(o, true, cap)).toEqual([cap, xycOut(cap, vIn, vOut)]);
    const beyond = cap * 10n;
    const [, quoted] = (await quote(o, true, beyond)) as [bigint, bigint];
    expect(quoted).toBeGreaterThan(bo);
    const swap = (amount: bigint) =>
      rc.simulate(rc.accounts.taker, 'swap', [o, rc.addr.lt, rc.addr.gt, amount, exactInTakerTraits()]);
    await expect(swap(beyond)).rejects.toThrow(/0x11|underflow|overflow/i);
    const done = await swap(cap);
    expect((done.result as readonly bigint[])[1]).toBe(xycOut(cap, vIn, vOut));
    expect(await rc.balance(hash, rc.addr.gt)).toBe(bo); // a simulation changes nothing
  });

  it('reverts as the reference on bad arguments and on a misplaced instruction', async () => {
    const ship = async (instructions: Hex[]) => {
      const o = order(instructions);
      await rc.ship(o, [UNIT * 10n, UNIT * 10n]);
      return o;
    };
    const raw = (args: Hex) =>
      `0x12${((args.length - 2) / 2).toString(16).padStart(2, '0')}${args.slice(2)}` as Hex;
    const word = (v: bigint) => v.toString(16).padStart(64, '0');
    const cases: [Hex[], string][] = [
      [[raw(`0x${word(1n).slice(2)}`), xycSwap()], selector('ConcentrateMissingSqrtPriceMin()')],
      [[raw(`0x${word(1n)}${word(2n).slice(2)}`), xycSwap()], selector('ConcentrateMissingSqrtPriceMax()')],
      [
        [concentrateOf({ sqrtPriceMin: 5n * 10n ** 17n, sqrtPriceMax: 5n * 10n ** 17n }), xycSwap()],
        'Panic(0x12)',
      ],
      [[concentrateOf({ sqrtPriceMin: 1n, sqrtPriceMax: 0n }), xycSwap()], 'Panic(0x12)'],
      [
        [concentrateOf({ sqrtPriceMin: 2n * 10n ** 18n, sqrtPriceMax: 10n ** 18n }), xycSwap()],
        'Panic(0x11)',
      ],
      // With only the salt after it there is no curve: nothing computes the output.
      [[concentrateOf(RANGE)], selector('TakerTraitsAmountOutMustBeGreaterThanZero(uint256)')],
    ];
    for (const [instructions, expected] of cases) {
      const o = await ship(instructions);
      expect(await quote(o, true, UNIT)).toBe(expected);
    }
    // After the curve: the register values at that point.
    const late = await ship([xycSwap(), concentrateOf(RANGE)]);
    const answer = await rc.call(quoteData(late, true, UNIT));
    const out = xycOut(UNIT, 10n * UNIT, 10n * UNIT);
    expect(answer.revert).toBe(
      `${selector('ConcentrateShouldBeUsedBeforeSwapAmountsComputed(uint256,uint256)')}${encodeAbiParameters(
        [{ type: 'uint256' }, { type: 'uint256' }],
        [UNIT, out],
      ).slice(2)}`,
    );
    // The run loop error carries pc = length = the program's length.
    const ending = rc.orderWith([concentrateOf(RANGE)]);
    await rc.ship(ending, [UNIT, UNIT]);
    const length = BigInt((ending.data.length - 2) / 2);
    expect((await rc.call(quoteData(ending, true, UNIT))).revert).toBe(
      `${selector('RunLoopExcessiveCall(uint256,uint256)')}${encodeAbiParameters(
        [{ type: 'uint256' }, { type: 'uint256' }],
        [length, length],
      ).slice(2)}`,
    );
  });
});

/** The largest curve input whose output stays within bo: ⌈(bo+1)·Vin/(Vout−bo−1)⌉ − 1. */
const ceilCap = (bo: bigint, vIn: bigint, vOut: bigint): bigint =>
  ceilDiv((bo + 1n) * vIn, vOut - bo - 1n) - 1n;

describe('PeggedSwapGrowPriceRange2D', () => {
  const units = 1_000n * UNIT;
  const flat: PegArgs = { x0: units, y0: units, linearWidth: 100n * E27, rateLt: 1n, rateGt: 1n };

  it('reproduces the documented edge: 1006340411 in pays 999999999, one more reverts; exactOut of all is 1006340412', async () => {
    // The documented vector runs behind the 0.05% protocol fee: 1006340411 gross is 1005837241 on the curve.
    const protocolOnly: Fees = { protocol: FEES.protocol, flat: 0n };
    const o = order([...feeInstructions(protocolOnly), peggedOf(flat)]);
    await rc.ship(o, [units, units]);
    expect(await quote(o, true, 1_006_340_411n)).toEqual([1_006_340_411n, 999_999_999n]);
    expect(await quote(o, true, 1_006_340_412n)).toBe(selector('PeggedSwapMathInvalidInput()'));
    expect(await quote(o, true, 1_006_340_411n, false)).toBe('Panic(0x11)'); // more than bo out
    expect(await quote(o, true, units, false)).toEqual([1_006_340_412n, units]);
    // The model agrees with the same numbers.
    expect(peggedOut(flat, true, units, units, feesIn(1_006_340_411n, protocolOnly).net)).toBe(999_999_999n);
    expect(feesOut(peggedIn(flat, true, units, units, units), protocolOnly).gross).toBe(1_006_340_412n);
  });

  it('quotes as the formulas with fees, rates and widths, both directions and both modes', async () => {
    const variants: [PegArgs, [bigint, bigint]][] = [
      [{ ...flat, linearWidth: 0n }, [units, units]],
      [{ ...flat, linearWidth: 249_500_000_000_000_000_000_000_000_000n }, [units, 2n * units]],
      [
        { x0: units * 10n ** 12n, y0: units, linearWidth: 500n * E27, rateLt: 10n ** 12n, rateGt: 1n },
        [units, units],
      ],
    ];
    for (const [args, balances] of variants) {
      const o = order([...feeInstructions(FEES), peggedOf(args)]);
      await rc.ship(o, balances);
      for (const inIsLt of [true, false]) {
        const [bi, bo] = inIsLt ? balances : [balances[1], balances[0]];
        for (const amount of [3_000n, UNIT, 100n * UNIT, 700n * UNIT]) {
          const expectIn = model(() => [amount, peggedOut(args, inIsLt, bi, bo, feesIn(amount, FEES).net)]);
          expect([args.linearWidth, inIsLt, amount, await quote(o, inIsLt, amount)]).toEqual([
            args.linearWidth,
            inIsLt,
            amount,
            expectIn,
          ]);
          const expectOut = model(() => [
            feesOut(peggedIn(args, inIsLt, bi, bo, amount), FEES).gross,
            amount,
          ]);
          expect([args.linearWidth, inIsLt, amount, 'out', await quote(o, inIsLt, amount, false)]).toEqual([
            args.linearWidth,
            inIsLt,
            amount,
            'out',
            expectOut,
          ]);
        }
      }
    }
  });

  it('checks its arguments in the documented order, and stays the only curve', async () => {
    const encoded = peggedOf(flat);
    const short = `0x1f9f${encoded.slice(6, encoded.length - 2)}` as Hex;
    const cases: [Hex[], [bigint, bigint], string][] = [
      [[short], [units, units], selector('PeggedSwapInvalidArgsLength(uint256)')],
      [
        [peggedOf({ ...flat, x0: 0n })],
        [units, units],
        selector('PeggedSwapInvalidInitialBalances(uint256,uint256)'),
      ],
      [
        [peggedOf({ ...flat, linearWidth: 5001n * E27 })],
        [units, units],
        selector('PeggedSwapInvalidLinearWidth(uint256)'),
      ],
      [
        [peggedOf({ ...flat, rateGt: 0n })],
        [units, units],
        selector('PeggedSwapInvalidRates(uint256,uint256)'),
      ],
      [[peggedOf(flat)], [0n, 0n], selector('PeggedSwapBothBalancesZero()')],
      [[peggedOf(flat), xycSwap()], [units, units], selector('XYCSwapRecomputeDetected()')],
      [[xycSwap(), peggedOf(flat)], [units, units], selector('PeggedSwapRecomputeDetected()')],
      [
        [xycSwap(), flatFeeAmountIn(1000)],
        [units, units],
        selector('FeeShouldBeAppliedBeforeSwapAmountsComputation()'),
      ],
    ];
    for (const [instructions, balances, expected] of cases) {
      const o = order(instructions);
      await rc.ship(o, balances);
      expect(await quote(o, true, UNIT)).toBe(expected);
    }
  });
});

describe('Decay, Deadline and Jump', () => {
  it('prices the reverse of a swap as if it had not happened, fading over the period', async () => {
    const period = 600n;
    const balances: [bigint, bigint] = [10_000n * UNIT, 10_000n * UNIT];
    const o = order([encodeInstruction('Decay', { period }), xycSwap()]);
    const hash = await rc.ship(o, balances);
    const amount = 1_000n * UNIT;
    const swapped = await swapLtToGt(o, amount);
    expect(swapped.status).toBe('success');
    const out = xycOut(amount, balances[0], balances[1]);
    const at = (await rc.publicClient.getBlock({ blockNumber: swapped.blockNumber })).timestamp;
    const [lt, gt] = [await rc.balance(hash, rc.addr.lt), await rc.balance(hash, rc.addr.gt)];
    expect([lt, gt]).toEqual([balances[0] + amount, balances[1] - out]);
    // Reverse (gt → lt): balanceIn (gt) + decayed out, balanceOut (lt) − decayed in.
    const reverse = (now: bigint, a: bigint) =>
      xycOut(a, gt + decayValue(out, at, period, now), lt - decayValue(amount, at, period, now));
    for (const elapsed of [0n, period / 3n, period - 1n, period]) {
      if (elapsed > 0n) await rc.mineAt(at + elapsed);
      expect([elapsed, await quote(o, false, 100n * UNIT)]).toEqual([
        elapsed,
        [100n * UNIT, reverse(at + elapsed, 100n * UNIT)],
      ]);
    }
    // The same direction is unaffected.
    expect(await quote(o, true, 100n * UNIT)).toEqual([100n * UNIT, xycOut(100n * UNIT, lt, gt)]);
  });

  it('Deadline passes at its second and reverts after with (taker, deadline); Jump skips what it jumps over', async () => {
    const latest = (await rc.publicClient.getBlock()).timestamp;
    const until = latest + 100n;
    const at = order([deadline(until), xycSwap()]);
    await rc.ship(at, [UNIT, UNIT]);
    await rc.mineAt(until); // block.timestamp == deadline: still open
    expect(await quote(at, true, UNIT)).toEqual([UNIT, xycOut(UNIT, UNIT, UNIT)]);
    await rc.mineAt(until + 1n);
    expect((await rc.call(quoteData(at, true, UNIT))).revert).toBe(
      `${selector('DeadlineReached(address,uint256)')}${encodeAbiParameters(
        [{ type: 'address' }, { type: 'uint256' }],
        [rc.accounts.taker.address, until],
      ).slice(2)}`,
    );
    const missing = order(['0x0d0400000001' as Hex, xycSwap()]);
    await rc.ship(missing, [UNIT, UNIT]);
    expect(await quote(missing, true, UNIT)).toBe(selector('ControlsMissingDeadlineArg()'));
    // Jump over an instruction this router does not run (opcode 27) straight to the curve.
    const unsupported = '0x1b00' as Hex;
    const jumpLength = 4;
    const target = jumpLength + 2;
    const jump = `0x0a02${target.toString(16).padStart(4, '0')}` as Hex;
    const skipping = order([jump, unsupported, xycSwap()]);
    await rc.ship(skipping, [UNIT, UNIT]);
    expect(await quote(skipping, true, UNIT)).toEqual([UNIT, xycOut(UNIT, UNIT, UNIT)]);
    const notSkipping = order([unsupported, xycSwap()]);
    await rc.ship(notSkipping, [UNIT, UNIT]);
    expect(await quote(notSkipping, true, UNIT)).toBe(selector('UnknownOpcode(uint8)'));
  });

  it('fees in exactOut: flat innermost, then the protocol fee, pulled to the receiver on swap', async () => {
    const o = order([...feeInstructions(FEES), xycSwap()]);
    const balances: [bigint, bigint] = [5_000n * UNIT, 5_000n * UNIT];
    const hash = await rc.ship(o, balances);
    const wanted = 700n * UNIT;
    const { gross, protocolFee } = feesOut(xycIn(wanted, balances[0], balances[1]), FEES);
    expect(await quote(o, true, wanted, false)).toEqual([gross, wanted]);
    const receipt = await swapLtToGt(o, wanted, exactOutTraits());
    expect(receipt.status).toBe('success');
    expect(await rc.balance(hash, rc.addr.lt)).toBe(balances[0] - protocolFee + gross);
    expect(await rc.balance(hash, rc.addr.gt)).toBe(balances[1] - wanted);
    expect(await quote(o, true, 0n)).toBe(selector('MakerTraitsZeroAmountInNotAllowed()'));
  });
});
