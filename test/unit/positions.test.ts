import { describe, expect, it } from 'vitest';
import type { ApiError } from '../../lib/errors.js';
import { feeBreakdown, feePercent, positionSalt } from '../../resolvers/positions/index.js';
import { assertInput } from '../../resolvers/positions/intent.js';
import {
  parseIdempotencyKey,
  parsePositionRequest,
  positionRequestJsonSchema,
  secretLike,
} from '../../resolvers/positions/request.js';
import type { PreparePositionInput } from '../../resolvers/positions/types.js';

describe('fee percentages (1e7 scale → exact text)', () => {
  it.each([
    [0, '0'],
    [1, '0.00001'],
    [5000, '0.05'],
    [30000, '0.3'],
    [35000, '0.35'],
    [100000, '1'],
    [123456, '1.23456'],
    [2000000, '20'],
    [2005000, '20.05'],
  ])('%i → %s', (bps, text) => {
    expect(feePercent(bps)).toBe(text);
  });

  it('adds the protocol fee without float artefacts', () => {
    for (let maker = 0; maker <= 2_000_000; maker += 7919) {
      const total = feeBreakdown(maker).totalFeePercent;
      expect(total).toMatch(/^\d+(\.\d{1,5})?$/);
      expect(Math.round(Number(total) * 100000)).toBe(maker + 5000);
    }
    expect(feeBreakdown(30000)).toMatchObject({ makerFeePercent: '0.3', totalFeePercent: '0.35' });
    expect(feeBreakdown(1_995_000).totalFeePercent).toBe('20');
  });
});

describe('the order salt', () => {
  it('is derived from (key, Idempotency-Key) and random without the header', () => {
    const k = '123e4567-e89b-12d3-a456-426614174000';
    expect(positionSalt('keyA', k)).toBe(positionSalt('keyA', k));
    expect(positionSalt('keyA', k)).not.toBe(positionSalt('keyB', k));
    expect(positionSalt('keyA', k)).toBeLessThan(1n << 64n);
    expect(positionSalt('keyA', null)).not.toBe(positionSalt('keyA', null));
  });

  it('draws distinct 64-bit salts without the header, across refills of its random pool', () => {
    const salts = Array.from({ length: 2000 }, () => positionSalt('keyA', null));
    expect(new Set(salts).size).toBe(salts.length);
    for (const salt of salts) expect(salt >= 0n && salt < 1n << 64n).toBe(true);
    // Uniform bits: about half the salts have their top bit set (2000 draws: 1000 ± ~3σ of 67).
    const high = salts.filter((salt) => salt >= 1n << 63n).length;
    expect(high).toBeGreaterThan(800);
    expect(high).toBeLessThan(1200);
  });
});

describe('request helpers', () => {
  it('normalises the Idempotency-Key', () => {
    expect(parseIdempotencyKey('123E4567-E89B-12D3-A456-426614174000')).toBe(
      '123e4567-e89b-12d3-a456-426614174000',
    );
    expect(parseIdempotencyKey(undefined)).toBeNull();
    expect(() => parseIdempotencyKey('123e4567e89b12d3a456426614174000')).toThrow(/uuid/);
  });

  it('lets ordinary metadata through and stops secrets', () => {
    expect(secretLike('orderRef', 'crm-4411 / campaign spring')).toBeNull();
    expect(secretLike('note', 'a short sentence about the abandon ability of this desk')).toBeNull();
    expect(secretLike('tx', `0x${'a'.repeat(63)}`)).toBeNull();
    expect(secretLike('k', `0x${'a'.repeat(64)}`)).not.toBeNull();
    expect(secretLike('seed', 'x')).not.toBeNull();
  });

  it('gives the OpenAPI engineer a JSON Schema of the body', () => {
    const schema = positionRequestJsonSchema() as { required: string[]; additionalProperties: boolean };
    expect(schema.required).toEqual(['chain', 'wallet', 'deposits']);
    expect(schema.additionalProperties).toBe(false);
  });
});

describe("a prepare's input, whoever calls", () => {
  const valid = {
    chain: 'base',
    wallet: `0x${'ab'.repeat(20)}`,
    deposits: [
      { symbol: 'USDC', amount: '1000000' },
      { symbol: 'USDT', amount: '1000000' },
    ],
  };
  const refusal = (check: () => unknown) => {
    try {
      check();
    } catch (error) {
      const e = error as ApiError;
      return { code: e.code, parameter: e.parameter, message: e.message };
    }
    return null;
  };

  it('takes GraphQL nulls for the optional fields as absent', () => {
    expect(
      refusal(() =>
        assertInput({ ...valid, makerFeeBps: null, metadata: null, approval: null, includeApprovals: null }),
      ),
    ).toBeNull();
  });

  it.each([
    ['a fee over the bound', { makerFeeBps: 2_000_001 }],
    ['a short wallet', { wallet: '0x12' }],
    ['one deposit', { deposits: [valid.deposits[0]!] }],
    ['a zero amount', { deposits: [valid.deposits[0]!, { symbol: 'USDT', amount: '0' }] }],
    ['a secret in metadata', { metadata: { privateKey: 'x' } }],
  ])('refuses %s with the answer of POST /v1/positions', (_name, change) => {
    const input = { ...valid, ...change };
    const fromResolver = refusal(() => assertInput(input as PreparePositionInput));
    expect(fromResolver).not.toBeNull();
    expect(fromResolver?.code).toBe('INVALID_PARAMETER');
    expect(fromResolver).toEqual(refusal(() => parsePositionRequest(input)));
  });
});
