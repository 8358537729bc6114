import { type Address, decodeFunctionData, type Hex, keccak256, toFunctionSelector } from 'viem';
import { describe, expect, it } from 'vitest';
import { aquaAbi, routerAbi } from '../../chain/abi.js';
import {
  approveCalldata,
  dockCalldata,
  quoteCalldata,
  shipCalldata,
  swapCalldata,
} from '../../chain/calldata.js';
import { quoteExactIn } from '../../chain/math.js';
import {
  AQUA_TRAITS,
  decodeStrategy,
  encodeStrategy,
  type Order,
  strategyHashOf,
} from '../../chain/order.js';
import {
  apiFeeToOnChain,
  aquaProtocolFeeAmountIn,
  buildProgram,
  deadline,
  decodeProgram,
  flatFeeAmountIn,
  OPCODES,
  PROTOCOL_FEE_1E9,
  salt,
  xycSwap,
} from '../../chain/program.js';
import { decodeTakerTraits, encodeTakerTraits, exactInTakerTraits } from '../../chain/takerTraits.js';

const R = '0x00000000000000000000000000000000000000a1' as Address;
const MAKER = '0x1111111111111111111111111111111111111111' as Address;
const TOKEN_A = '0x2222222222222222222222222222222222222222' as Address;
const TOKEN_B = '0x3333333333333333333333333333333333333333' as Address;

describe('program', () => {
  it('uses the Aqua router opcode numbers', () => {
    expect(OPCODES).toEqual({
      Deadline: 13,
      XYCSwap: 17,
      Salt: 20,
      FlatFeeAmountIn: 21,
      AquaProtocolFeeAmountIn: 28,
    });
  });

  it('encodes the 0.05% protocol fee instruction as 1c18 0007a120 then the receiver', () => {
    expect(PROTOCOL_FEE_1E9).toBe(500_000);
    expect(apiFeeToOnChain(5000)).toBe(PROTOCOL_FEE_1E9);
    expect(aquaProtocolFeeAmountIn(PROTOCOL_FEE_1E9, R)).toBe(`0x1c180007a120${R.slice(2)}`);
  });

  it('encodes every instruction as [opcode][argsLen][args]', () => {
    expect(xycSwap()).toBe('0x1100');
    expect(flatFeeAmountIn(3_000_000)).toBe('0x1504002dc6c0');
    expect(salt(1n)).toBe('0x14080000000000000001');
    expect(deadline(0x6553f100n)).toBe('0x0d05006553f100');
    expect(() => deadline(1n << 40n)).toThrow(RangeError);
    expect(() => salt(1n << 64n)).toThrow(RangeError);
    expect(() => flatFeeAmountIn(1_000_000_001)).toThrow(RangeError);
  });

  it('decodes what it builds', () => {
    const program = buildProgram([
      deadline(1_900_000_000n),
      aquaProtocolFeeAmountIn(PROTOCOL_FEE_1E9, R),
      flatFeeAmountIn(3_000_000),
      xycSwap(),
      salt(42n),
    ]);
    const decoded = decodeProgram(program);
    expect(decoded.map((i) => [i.offset, i.opcode, i.name, i.args, i.ok])).toEqual([
      [0, 13, 'Deadline', '0x00713fb300', true],
      [7, 28, 'AquaProtocolFeeAmountIn', `0x0007a120${R.slice(2)}`, true],
      [33, 21, 'FlatFeeAmountIn', '0x002dc6c0', true],
      [39, 17, 'XYCSwap', '0x', true],
      [41, 20, 'Salt', '0x000000000000002a', true],
    ]);
    expect(decoded[0]!.typedArgs).toEqual([{ name: 'deadline', type: 'uint40', value: '1900000000' }]);
    expect(decoded[1]!.typedArgs).toEqual([
      { name: 'fee1e9', type: 'uint32', value: '500000' },
      { name: 'receiver', type: 'address', value: '0x00000000000000000000000000000000000000A1' },
    ]);
    expect(decodeProgram('0x')).toEqual([]);
  });

  it('decodes PeggedSwap (31) and Extruction (32) by their layouts', () => {
    const pegged = `0x1fa0${'00'.repeat(160)}` as Hex;
    const decoded = decodeProgram(buildProgram([pegged, '0x2000', xycSwap()]));
    expect(decoded.map((i) => [i.opcode, i.name, i.ok])).toEqual([
      [31, 'PeggedSwapGrowPriceRange2D', true],
      [32, 'Extruction', false], // its 20-byte target is missing
      [17, 'XYCSwap', true],
    ]);
    expect(decoded[0]?.args).toBe(`0x${'00'.repeat(160)}`);
  });

  it('never throws on truncated or malformed input', () => {
    expect(decodeProgram('0x11')).toMatchObject([
      { opcode: 17, name: 'truncated', args: '0x', raw: '0x11', ok: false },
    ]);
    expect(decodeProgram('0x11001c180007')).toMatchObject([
      { opcode: 17, name: 'XYCSwap', args: '0x', ok: true },
      { offset: 2, opcode: 28, name: 'truncated', args: '0x0007', raw: '0x1c180007', ok: false },
    ]);
    expect(decodeProgram('0x123' as Hex)[0]?.name).toBe('truncated');
    expect(decodeProgram('nonsense' as Hex)[0]).toMatchObject({ name: 'truncated', opcode: null, ok: false });
    // A known opcode with the wrong width keeps its name but has no decoded args.
    expect(decodeProgram('0x15020001')).toMatchObject([
      { opcode: 21, name: 'FlatFeeAmountIn', args: '0x0001', typedArgs: [], ok: false },
    ]);
  });
});

describe('order / strategy', () => {
  const order: Order = {
    maker: MAKER,
    traits: AQUA_TRAITS,
    data: buildProgram([aquaProtocolFeeAmountIn(PROTOCOL_FEE_1E9, R), xycSwap(), salt(7n)]),
  };

  it('sets traits bit 254', () => {
    expect(AQUA_TRAITS).toBe(0x4000000000000000000000000000000000000000000000000000000000000000n);
  });

  it('encodes one tuple starting with the 0x20 offset word', () => {
    const strategy = encodeStrategy(order);
    const words = strategy.slice(2).match(/.{64}/g) ?? [];
    expect(words[0]).toBe(`${'0'.repeat(62)}20`);
    expect(words[1]).toBe(`${'0'.repeat(24)}${MAKER.slice(2)}`);
    expect(words[2]).toBe(`4${'0'.repeat(63)}`);
    expect(words[3]).toBe(`${'0'.repeat(62)}60`);
    expect(BigInt(`0x${words[4]}`)).toBe(BigInt((order.data.length - 2) / 2));
    expect(strategyHashOf(strategy)).toBe(keccak256(strategy));
  });

  it('round-trips and rejects garbage without throwing', () => {
    const strategy = encodeStrategy(order);
    expect(decodeStrategy(strategy)).toEqual(order);
    expect(decodeStrategy('0x')).toBeNull();
    expect(decodeStrategy('0xdeadbeef')).toBeNull();
    expect(decodeStrategy('zz' as Hex)).toBeNull();
    expect(decodeStrategy(`${strategy}00` as Hex)).toBeNull();
    expect(decodeStrategy(`${strategy}00` as Hex, { strict: false })).toEqual(order);
  });
});

describe('taker traits', () => {
  it('minimal exactIn value is 20 zero bytes then 0041', () => {
    expect(exactInTakerTraits()).toBe(`0x${'00'.repeat(20)}0041`);
  });

  it('places slice end-offsets at bits 16k', () => {
    const threshold = `0x${'00'.repeat(31)}05` as Hex;
    const to = TOKEN_A as Hex;
    const value = encodeTakerTraits({ flags: 0x41, slices: { threshold, to, signature: '0xabcd' } });
    // slice 0 ends at 32, slice 1 (and every later empty slice) at 52
    const offsets =
      (32n | (52n << 16n)) + [2, 3, 4, 5, 6, 7, 8, 9].reduce((acc, k) => acc | (52n << BigInt(16 * k)), 0n);
    expect(value.slice(0, 42)).toBe(`0x${offsets.toString(16).padStart(40, '0')}`);
    expect(value.slice(42, 46)).toBe('0041');
    expect(decodeTakerTraits(value)).toEqual({
      flags: 0x41,
      slices: [threshold, to.toLowerCase(), '0x', '0x', '0x', '0x', '0x', '0x', '0x', '0x'],
      signature: '0xabcd',
    });
    expect(decodeTakerTraits('0x0041')).toBeNull();
  });
});

describe('calldata', () => {
  it('uses the PROTOCOL.md selectors', () => {
    const order: Order = { maker: MAKER, traits: AQUA_TRAITS, data: xycSwap() };
    const strategy = encodeStrategy(order);
    const swap = {
      order,
      tokenIn: TOKEN_A,
      tokenOut: TOKEN_B,
      amount: 10n,
      takerTraits: exactInTakerTraits(),
    };
    expect(shipCalldata({ app: R, strategy, tokens: [TOKEN_A], amounts: [1n] }).slice(0, 10)).toBe(
      '0xf50b870f',
    );
    expect(
      dockCalldata({ app: R, strategyHash: strategyHashOf(strategy), tokens: [TOKEN_A] }).slice(0, 10),
    ).toBe('0x28defc17');
    expect(quoteCalldata(swap).slice(0, 10)).toBe('0x44aa5f14');
    expect(swapCalldata(swap).slice(0, 10)).toBe('0xf4d2d412');
    expect(approveCalldata(R, 5n).slice(0, 10)).toBe('0x095ea7b3');
    expect(toFunctionSelector('hash((address,uint256,bytes))')).toBe('0xf5d08521');
    expect(toFunctionSelector('pull(address,bytes32,address,uint256,address)')).toBe('0xb00bbd10');
    expect(toFunctionSelector('push(address,address,bytes32,address,uint256)')).toBe('0x47d72768');

    const decodedShip = decodeFunctionData({
      abi: aquaAbi,
      data: shipCalldata({ app: R, strategy, tokens: [TOKEN_A], amounts: [1n] }),
    });
    expect(decodedShip.args?.[1]).toBe(strategy);
    const decodedSwap = decodeFunctionData({ abi: routerAbi, data: swapCalldata(swap) });
    expect(decodedSwap.functionName).toBe('swap');
    expect(decodedSwap.args?.[0]).toEqual(order);
  });
});

describe('quoteExactIn', () => {
  it('follows the exactIn arithmetic (protocol fee floor, flat fee ceil, XYC floor)', () => {
    const q = quoteExactIn({
      amountIn: 1_000_000_000n,
      balanceIn: 10_000_000_000n,
      balanceOut: 20_000_000_000n,
      protocolFee1e9: 500_000,
      flatFee1e9: 3_000_000,
    });
    // p = 500000; a1 = 999500000; f = ceil(2998500) = 2998500; a2 = 996501500
    expect(q.protocolFee).toBe(500_000n);
    expect(q.flatFee).toBe(2_998_500n);
    expect(q.amountIn).toBe(1_000_000_000n);
    expect(q.amountOut).toBe((996_501_500n * 20_000_000_000n) / (10_000_000_000n + 996_501_500n));
  });

  it('rounds the flat fee up and the protocol fee down', () => {
    const pools = { balanceIn: 10n ** 12n, balanceOut: 10n ** 12n };
    // p = floor(3001 · 0.0005) = floor(1.5005) = 1; a1 = 3000; f = 3000 · 0.003 = 9 exactly
    const q = quoteExactIn({ amountIn: 3001n, ...pools, protocolFee1e9: 500_000, flatFee1e9: 3_000_000 });
    expect([q.protocolFee, q.flatFee]).toEqual([1n, 9n]);
    // no protocol fee: a1 = 3001; f = ceil(9.003) = 10
    const r = quoteExactIn({ amountIn: 3001n, ...pools, protocolFee1e9: 0, flatFee1e9: 3_000_000 });
    expect([r.protocolFee, r.flatFee]).toEqual([0n, 10n]);
    expect(r.amountOut).toBe((2991n * 10n ** 12n) / (10n ** 12n + 2991n));
  });

  it('charges no protocol fee under 2,000 base units', () => {
    const q = quoteExactIn({
      amountIn: 1999n,
      balanceIn: 10n ** 9n,
      balanceOut: 10n ** 9n,
      protocolFee1e9: 500_000,
      flatFee1e9: 0,
    });
    expect(q.protocolFee).toBe(0n);
    expect(
      quoteExactIn({ amountIn: 2000n, balanceIn: 1n, balanceOut: 1n, protocolFee1e9: 500_000, flatFee1e9: 0 })
        .protocolFee,
    ).toBe(1n);
  });

  it('returns 0 out for an empty pool instead of dividing by zero', () => {
    expect(
      quoteExactIn({ amountIn: 0n, balanceIn: 0n, balanceOut: 5n, protocolFee1e9: 0, flatFee1e9: 0 })
        .amountOut,
    ).toBe(0n);
  });
});
