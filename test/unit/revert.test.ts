import { getAddress, type Hex, keccak256, toBytes, toFunctionSelector } from 'viem';
import { describe, expect, it } from 'vitest';
import { decodeRevert, routerErrorsAbi } from '../../chain/revert.js';
import { artifacts } from '../../devnet/artifacts.js';

/** A 32-byte ABI word of a uint or an address, as the reference contracts emit it. */
const word = (value: bigint | string) =>
  (typeof value === 'bigint' ? value.toString(16) : value.slice(2).toLowerCase()).padStart(64, '0');
const bytes = (selector: string, ...words: (bigint | string)[]) =>
  `${selector}${words.map(word).join('')}` as Hex;

const MAKER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const APP = '0x111111338c5091e8440b67b168bae16a668ac0de';
const TOKEN = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const HASH = keccak256(toBytes('a strategy'));

/** PROTOCOL.md "Reference revert encodings": the signature of every case and its selector. */
const REFERENCE: [signature: string, selector: string | null][] = [
  ['TakerTraitsAmountOutMustBeGreaterThanZero(uint256)', '0xf6ab88ca'],
  ['SafeTransferFromFailed()', '0xf4059071'],
  ['SafeBalancesForTokenNotInActiveStrategy(address,address,bytes32,address)', '0xb63386a6'],
  ['StrategiesMustBeImmutable(address,bytes32)', null],
  ['DockingShouldCloseAllTokens(address,bytes32)', null],
  ['TakerTraitsInsufficientMinOutputAmount(uint256,uint256)', '0xf44f8993'],
  ['TakerTraitsDeadlineExpired()', '0x6dbb538d'],
];

describe('reference revert selectors', () => {
  it('match PROTOCOL.md, and the decoder and the devnet contracts declare each one', () => {
    const abiSelectors = new Set(
      routerErrorsAbi.map((e) => toFunctionSelector(`${e.name}(${e.inputs.map((i) => i.type).join(',')})`)),
    );
    const contractSelectors = new Set(
      [artifacts.Aqua, artifacts.AquaSwapVMRouter].flatMap((a) =>
        a.abi
          .filter((item) => item.type === 'error')
          .map((e) => toFunctionSelector(`${e.name}(${e.inputs.map((i) => i.type).join(',')})`)),
      ),
    );
    for (const [signature, selector] of REFERENCE) {
      const computed = keccak256(toBytes(signature)).slice(0, 10) as Hex;
      expect(toFunctionSelector(signature)).toBe(computed);
      if (selector) expect(computed, signature).toBe(selector);
      expect(abiSelectors.has(computed), signature).toBe(true);
      if (signature !== 'SafeTransferFromFailed()')
        expect(contractSelectors.has(computed), signature).toBe(true);
    }
    // The 0-argument form does not exist on the reference; the devnet no longer raises it.
    expect(toFunctionSelector('TakerTraitsAmountOutMustBeGreaterThanZero()')).toBe('0xedb785b6');
    expect(contractSelectors.has('0xedb785b6')).toBe(false);
    expect(abiSelectors.has('0xedb785b6')).toBe(false);
  });
});

describe('decodeRevert on the reference encodings', () => {
  it('output rounds to 0: 0xf6ab88ca + amountOut', () => {
    const d = decodeRevert(bytes('0xf6ab88ca', 0n));
    expect(d).toMatchObject({
      name: 'TakerTraitsAmountOutMustBeGreaterThanZero',
      reason: 'TakerTraitsAmountOutMustBeGreaterThanZero(0)',
      hint: expect.stringMatching(/rounds to 0/),
    });
    expect(d.data).toHaveLength(2 + 2 * 36);
  });

  it('protocol fee above the tokenIn balance: Panic(0x11)', () => {
    const d = decodeRevert(bytes('0x4e487b71', 0x11n));
    expect(d).toMatchObject({
      name: 'Panic',
      reason: 'Panic(17)',
      hint: expect.stringMatching(/protocol fee/),
    });
  });

  it("maker's allowance or balance short: SafeTransferFromFailed() 0xf4059071", () => {
    expect(decodeRevert('0xf4059071')).toMatchObject({
      name: 'SafeTransferFromFailed',
      reason: 'SafeTransferFromFailed()',
      hint: expect.stringMatching(/allowance/),
    });
  });

  it('strategy not active: SafeBalancesForTokenNotInActiveStrategy 0xb63386a6 + maker, app, hash, token', () => {
    const d = decodeRevert(bytes('0xb63386a6', MAKER, APP, HASH, TOKEN));
    expect(d.name).toBe('SafeBalancesForTokenNotInActiveStrategy');
    expect(d.reason).toBe(
      `SafeBalancesForTokenNotInActiveStrategy(${MAKER}, ${getAddress(APP)}, ${HASH}, ${TOKEN})`,
    );
    expect(d.hint).toMatch(/not active/);
  });

  it('re-ship: StrategiesMustBeImmutable(app, hash)', () => {
    const selector = toFunctionSelector('StrategiesMustBeImmutable(address,bytes32)');
    const d = decodeRevert(bytes(selector, APP, HASH));
    expect(d.name).toBe('StrategiesMustBeImmutable');
    expect(d.hint).toMatch(/already shipped/);
  });

  it('dock with another token list: DockingShouldCloseAllTokens(app, hash)', () => {
    const selector = toFunctionSelector('DockingShouldCloseAllTokens(address,bytes32)');
    const d = decodeRevert(bytes(selector, APP, HASH));
    expect(d.name).toBe('DockingShouldCloseAllTokens');
    expect(d.hint).toMatch(/exactly the tokens/);
  });

  it('min output not met: TakerTraitsInsufficientMinOutputAmount 0xf44f8993 + amountOut, amountOutMin', () => {
    const d = decodeRevert(bytes('0xf44f8993', 990n, 1000n));
    expect(d).toMatchObject({
      name: 'TakerTraitsInsufficientMinOutputAmount',
      reason: 'TakerTraitsInsufficientMinOutputAmount(990, 1000)',
      hint: expect.stringMatching(/slippage/),
    });
  });

  it("taker's deadline passed: TakerTraitsDeadlineExpired() 0x6dbb538d", () => {
    expect(decodeRevert('0x6dbb538d')).toMatchObject({
      name: 'TakerTraitsDeadlineExpired',
      reason: 'TakerTraitsDeadlineExpired()',
      hint: expect.stringMatching(/deadline/),
    });
  });

  it('gives every reference case a hint, and keeps unknown selectors and empty data', () => {
    for (const [signature] of REFERENCE) {
      const name = signature.slice(0, signature.indexOf('('));
      const selector = toFunctionSelector(signature);
      const count = signature
        .slice(name.length + 1, -1)
        .split(',')
        .filter(Boolean).length;
      const d = decodeRevert(bytes(selector, ...Array.from({ length: count }, () => 1n)));
      expect(d.name).toBe(name);
      expect(d.hint, name).not.toBeNull();
    }
    expect(decodeRevert('0xdeadbeef').reason).toBe('unrecognised revert (selector 0xdeadbeef)');
    expect(decodeRevert('0x').reason).toBe('reverted without a reason');
  });
});
