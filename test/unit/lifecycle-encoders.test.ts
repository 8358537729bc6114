import { decodeAbiParameters, getAddress, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { dockCalldata } from '../../chain/calldata.js';
import { decodeTakerTraits, minOutputTakerTraits } from '../../chain/takerTraits.js';
import { healthOf } from '../../domain/positionHealth.js';

/** PROTOCOL.md "Taker data with a minimum output and a deadline" and Aqua's dock, byte for byte. */
describe('taker data with a minimum output and a deadline', () => {
  it('is offsets [32, 32, 37 ×8], flags 0x0041, the threshold as 32 bytes, the deadline as 5 bytes', () => {
    const m = 123_456_789n;
    const d = 0x6923f100n;
    const data = minOutputTakerTraits({ minAmountOut: m, deadline: d });
    // uint160 of ten uint16 end offsets, slice k at bits 16k, big-endian as a whole: slice 9 first.
    const header = `${'0025'.repeat(8)}002000200041`;
    expect(data).toBe(`0x${header}${m.toString(16).padStart(64, '0')}006923f100` as Hex);
    expect((data.length - 2) / 2).toBe(22 + 32 + 5);
    const decoded = decodeTakerTraits(data)!;
    expect(decoded.flags).toBe(0x41);
    expect(BigInt(decoded.slices[0]!)).toBe(m);
    expect(decoded.slices[1]).toBe('0x');
    expect(BigInt(decoded.slices[2]!)).toBe(d);
    expect(decoded.slices.slice(3).every((s) => s === '0x')).toBe(true);
    expect(decoded.signature).toBe('0x');
  });

  it('refuses values that do not fit their slices', () => {
    expect(() => minOutputTakerTraits({ minAmountOut: 1n << 256n, deadline: 1n })).toThrow(RangeError);
    expect(() => minOutputTakerTraits({ minAmountOut: 1n, deadline: 1n << 40n })).toThrow(RangeError);
    expect(() => minOutputTakerTraits({ minAmountOut: -1n, deadline: 1n })).toThrow(RangeError);
  });
});

describe('dock calldata', () => {
  it('is dock(address app, bytes32 strategyHash, address[] tokens), selector 0x28defc17, tokens as given', () => {
    const app = '0x111111338c5091e8440b67b168bae16a668ac0de';
    const hash = `0x${'ab'.repeat(32)}` as Hex;
    const tokens = [
      '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913',
      '0xfde4c96c8593536e31f229ea8f37b2ada2699bb2',
    ] as const;
    const data = dockCalldata({ app, strategyHash: hash, tokens });
    expect(data.slice(0, 10)).toBe('0x28defc17');
    const [a, h, t] = decodeAbiParameters(
      [{ type: 'address' }, { type: 'bytes32' }, { type: 'address[]' }],
      `0x${data.slice(10)}`,
    );
    expect([a, h, t]).toEqual([getAddress(app), hash, tokens.map((x) => getAddress(x))]);
  });
});

describe('health status', () => {
  const token = (symbol: string, address: string) => ({ symbol, address, decimals: 6 });
  const aqua = getAddress('0x1111113ccf1426a8e30e2bff5e005d929bf6a90a');
  const coverage = (a: [bigint, bigint, bigint, bigint], b: [bigint, bigint, bigint, bigint]) => ({
    strategies: 2,
    ownState: 'active' as const,
    tokens: [a, b].map(([allowance, balance, committed, own], i) => ({
      token: token(i === 0 ? 'USDC' : 'USDT', `0x${String(i + 1).repeat(40)}`),
      allowance,
      balance,
      committed,
      own,
    })),
  });

  it('is ok when allowance and balance reach the sum over the wallet, both tokens', () => {
    const h = healthOf(coverage([200n, 200n, 200n, 100n], [300n, 900n, 250n, 100n]), aqua);
    expect([h.status, h.issues]).toEqual(['ok', []]);
  });

  it('is at_risk when this strategy is covered but not the sum, with the issue in the SPEC 7 shape', () => {
    const h = healthOf(coverage([150n, 900n, 200n, 100n], [300n, 900n, 250n, 100n]), aqua);
    expect(h.status).toBe('at_risk');
    expect(h.issues).toEqual([
      {
        type: 'INSUFFICIENT_ALLOWANCE',
        expected: '200',
        actual: '150',
        spender: getAddress(aqua),
        token: '0x1111111111111111111111111111111111111111',
      },
    ]);
  });

  it('is stalled when coverage is below what this strategy alone can give out', () => {
    const h = healthOf(coverage([900n, 50n, 200n, 100n], [300n, 900n, 250n, 100n]), aqua);
    expect(h.status).toBe('stalled');
    expect(h.issues.map((i) => [i.type, i.spender])).toEqual([['INSUFFICIENT_BALANCE', null]]);
  });
});
