import { concat, encodePacked, getAddress, type Hex, toHex } from 'viem';
import { describe, expect, it } from 'vitest';
import { INSTRUCTIONS, ROUTER_TABLE, TABLE_SIZE } from '../../chain/instructions.js';
import { decodeProgram, describeProgram, encodeInstruction } from '../../chain/program.js';
import { seededRandom } from '../../devnet/strategies.js';
import { seeds } from '../helpers/seeds.js';

/**
 * The program decoder against the AquaSwapVMRouter v1.0.1 table. The test encoder below is our own and
 * independent of the decoder's table: each instruction's layout is written out here from the router
 * source (`@param args.*` of each instruction), packed with viem's `encodePacked`.
 */

type PackedType = 'uint16' | 'uint32' | 'uint40' | 'uint64' | 'uint256' | 'address' | 'bytes';
type Layout = readonly (readonly [string, PackedType])[];

/** `[opcode u8][argsLen u8][args]` with the args packed big-endian. */
function encode(opcode: number, layout: Layout, values: readonly unknown[]): Hex {
  const args = encodePacked(
    layout.map(([, type]) => type),
    // biome-ignore lint/suspicious/noExplicitAny: encodePacked's tuple typing needs literal types; the layouts are data.
    values as any,
  );
  const length = (args.length - 2) / 2;
  return concat([toHex(opcode, { size: 1 }), toHex(length, { size: 1 }), args]);
}

const TOKEN = getAddress('0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48');
const OTHER = getAddress('0x00000000000000000000000000000000000000a1');
const MAX = (bits: number) => (1n << BigInt(bits)) - 1n;

/** opcode, name, layout, sample values (max-width numbers so every byte is checked). */
const CASES: readonly [number, string, Layout, readonly unknown[]][] = [
  [10, 'Jump', [['nextPC', 'uint16']], [MAX(16)]],
  [
    11,
    'JumpIfTokenIn',
    [
      ['token', 'address'],
      ['nextPC', 'uint16'],
    ],
    [TOKEN, 42n],
  ],
  [
    12,
    'JumpIfTokenOut',
    [
      ['token', 'address'],
      ['nextPC', 'uint16'],
    ],
    [OTHER, 0n],
  ],
  [13, 'Deadline', [['deadline', 'uint40']], [MAX(40)]],
  [14, 'OnlyTakerTokenBalanceNonZero', [['token', 'address']], [TOKEN]],
  [
    15,
    'OnlyTakerTokenBalanceGte',
    [
      ['token', 'address'],
      ['minAmount', 'uint256'],
    ],
    [TOKEN, MAX(256)],
  ],
  [
    16,
    'OnlyTakerTokenSupplyShareGte',
    [
      ['token', 'address'],
      ['minShareE18', 'uint64'],
    ],
    [TOKEN, MAX(64)],
  ],
  [17, 'XYCSwap', [], []],
  [
    18,
    'XYCConcentrateGrowLiquidity2D',
    [
      ['sqrtPriceMin', 'uint256'],
      ['sqrtPriceMax', 'uint256'],
    ],
    [999_000_000_000_000_000n, 1_001_000_000_000_000_000n],
  ],
  [19, 'Decay', [['period', 'uint16']], [300n]],
  [20, 'Salt', [['salt', 'bytes']], ['0x00000000000000000000002a']],
  [21, 'FlatFeeAmountIn', [['fee1e9', 'uint32']], [MAX(32)]],
  [
    27,
    'ProtocolFeeAmountIn',
    [
      ['fee1e9', 'uint32'],
      ['receiver', 'address'],
    ],
    [500_000n, OTHER],
  ],
  [
    28,
    'AquaProtocolFeeAmountIn',
    [
      ['fee1e9', 'uint32'],
      ['receiver', 'address'],
    ],
    [500_000n, OTHER],
  ],
  [29, 'DynamicProtocolFeeAmountIn', [['feeProvider', 'address']], [TOKEN]],
  [30, 'AquaDynamicProtocolFeeAmountIn', [['feeProvider', 'address']], [OTHER]],
  [
    31,
    'PeggedSwapGrowPriceRange2D',
    [
      ['x0', 'uint256'],
      ['y0', 'uint256'],
      ['linearWidth', 'uint256'],
      ['rateLt', 'uint256'],
      ['rateGt', 'uint256'],
    ],
    [10n ** 24n, 10n ** 24n, 100n * 10n ** 27n, 10n ** 12n, MAX(256)],
  ],
  [
    32,
    'Extruction',
    [
      ['target', 'address'],
      ['extructionArgs', 'bytes'],
    ],
    [TOKEN, '0xdeadbeef'],
  ],
  [33, 'OnlyTxOriginTokenBalanceNonZero', [['token', 'address']], [TOKEN]],
];

const RESERVED = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 22, 23, 24, 25, 26];

function shown(type: PackedType, value: unknown): string {
  if (type === 'address') return getAddress(value as string);
  if (type === 'bytes') return value as string;
  return (value as bigint).toString();
}

describe(`program decoder (${ROUTER_TABLE})`, () => {
  it("holds PROTOCOL.md's known opcodes at their numbers", () => {
    const named = (op: number) => INSTRUCTIONS[op]!.name;
    expect([10, 13, 17, 20, 21, 28, 31].map(named)).toEqual([
      'Jump',
      'Deadline',
      'XYCSwap',
      'Salt',
      'FlatFeeAmountIn',
      'AquaProtocolFeeAmountIn',
      'PeggedSwapGrowPriceRange2D',
    ]);
  });

  it('has an entry for every opcode of the table, and the layouts written here', () => {
    expect(INSTRUCTIONS).toHaveLength(TABLE_SIZE);
    expect(INSTRUCTIONS.map((spec) => spec.opcode)).toEqual([...Array(TABLE_SIZE).keys()]);
    for (const [opcode, name, layout] of CASES) {
      expect(INSTRUCTIONS[opcode]).toMatchObject({
        name,
        args: layout.map(([n, type]) => ({ name: n, type })),
      });
    }
    const covered = new Set([...CASES.map(([op]) => op), ...RESERVED]);
    expect([...covered].sort((a, b) => a - b)).toEqual([...Array(TABLE_SIZE).keys()]);
  });

  for (const [opcode, name, layout, values] of CASES) {
    it(`round-trips ${name} (${opcode})`, () => {
      const bytes = encode(opcode, layout, values);
      // The service's own table-driven encoder writes the same bytes.
      const named = Object.fromEntries(layout.map(([n], i) => [n, values[i] as bigint | Hex]));
      expect(encodeInstruction(name, named)).toBe(bytes.toLowerCase());
      const [decoded, ...rest] = decodeProgram(bytes);
      expect(rest).toEqual([]);
      expect(decoded).toEqual({
        offset: 0,
        opcode,
        name,
        args: `0x${bytes.slice(6)}`,
        typedArgs: layout.map(([n, type], i) => ({ name: n, type, value: shown(type, values[i]) })),
        ok: true,
        error: null,
      });
      // Zero values of fixed-width args decode too (leading zero bytes are not dropped).
      const zeros = values.map((v, i) =>
        layout[i]![1] === 'address' ? OTHER : typeof v === 'bigint' ? 0n : v,
      );
      const [zero] = decodeProgram(encode(opcode, layout, zeros));
      expect(zero!.typedArgs.map((a) => a.value)).toEqual(layout.map(([, type], i) => shown(type, zeros[i])));
    });

    const fixed = layout.every(([, type]) => type !== 'bytes');
    if (fixed) {
      it(`marks ${name} (${opcode}) args that do not match its layout`, () => {
        const args = encodePacked(
          layout.map(([, type]) => type),
          // biome-ignore lint/suspicious/noExplicitAny: see encode().
          values as any,
        ).slice(2);
        const width = args.length / 2;
        const header = (n: number) =>
          `${toHex(opcode, { size: 1 }).slice(2)}${toHex(n, { size: 1 }).slice(2)}`;
        const variants = [`${args}00`, ...(width > 0 ? [args.slice(2)] : [])];
        for (const variant of variants) {
          const program = `0x${header(variant.length / 2)}${variant}1100` as Hex;
          const [bad, next] = decodeProgram(program);
          expect(bad).toMatchObject({ opcode, name, args: `0x${variant}`, typedArgs: [], ok: false });
          expect(bad!.error).toContain(`${name} takes`);
          expect(bad!.error).toContain(`got ${variant.length / 2} bytes`);
          // The next instruction is still read.
          expect(next).toMatchObject({ name: 'XYCSwap', ok: true, offset: 2 + variant.length / 2 });
        }
      });
    }
  }

  it('refuses to encode missing, mistyped or too wide args', () => {
    expect(() => encodeInstruction('Jump', {})).toThrow(/missing nextPC/);
    expect(() => encodeInstruction('Jump', { nextPC: 1n << 16n })).toThrow(RangeError);
    expect(() => encodeInstruction('OnlyTakerTokenBalanceNonZero', { token: '0x12' })).toThrow(/an address/);
    expect(() => encodeInstruction('Nope', {})).toThrow(/no instruction Nope/);
  });

  it('reads the reserved no-op slots (debug bank 0-9, 22-26) as Reserved', () => {
    for (const opcode of RESERVED) {
      const [slot] = decodeProgram(concat([toHex(opcode, { size: 1 }), '0x02beef']));
      expect(slot).toMatchObject({ opcode, name: 'Reserved', ok: true });
      expect(slot!.typedArgs).toEqual([{ name: 'ignored', type: 'bytes', value: '0xbeef' }]);
    }
  });

  it('takes open-ended args at any length: an empty Salt, an Extruction with no extra args', () => {
    expect(decodeProgram('0x1400')[0]).toMatchObject({ name: 'Salt', ok: true });
    const [ext] = decodeProgram(encode(32, [['target', 'address']], [TOKEN]));
    expect(ext!.typedArgs).toEqual([
      { name: 'target', type: 'address', value: TOKEN },
      { name: 'extructionArgs', type: 'bytes', value: '0x' },
    ]);
    const [short] = decodeProgram('0x2013' as Hex);
    expect(short).toMatchObject({ name: 'truncated', ok: false });
    expect(decodeProgram(`0x2013${'ab'.repeat(19)}` as Hex)[0]).toMatchObject({
      name: 'Extruction',
      ok: false,
    });
  });

  it('decodes a program of every instruction, with the offsets a Jump targets', () => {
    const parts = CASES.map(([opcode, , layout, values]) => encode(opcode, layout, values));
    const program = concat(parts);
    const described = describeProgram(program);
    expect(described.table).toBe(ROUTER_TABLE);
    expect(described.bytes).toBe((program.length - 2) / 2);
    expect(described.decoded).toBe(true);
    expect(described.instructions.map((i) => i.name)).toEqual(CASES.map(([, name]) => name));
    let offset = 0;
    described.instructions.forEach((instruction, i) => {
      expect(instruction.offset).toBe(offset);
      offset += (parts[i]!.length - 2) / 2;
    });
  });

  it('marks opcodes outside the table as unknown and goes on', () => {
    for (const opcode of [34, 51, 0x80, 0xff]) {
      const decoded = decodeProgram(concat([toHex(opcode, { size: 1 }), '0x0101', '0x1100']));
      expect(decoded[0]).toMatchObject({ opcode, name: 'unknown', args: '0x01', ok: false });
      expect(decoded[0]!.error).toContain('outside');
      expect(decoded[1]).toMatchObject({ name: 'XYCSwap', ok: true });
    }
    expect(describeProgram('0x22001100').decoded).toBe(false);
  });

  it('marks truncated programs: a lone opcode, args longer than what is left', () => {
    expect(decodeProgram('0x0d')).toMatchObject([{ opcode: 13, name: 'truncated', raw: '0x0d', ok: false }]);
    const [cut] = decodeProgram('0x0d05006553');
    expect(cut).toMatchObject({ opcode: 13, name: 'truncated', args: '0x006553', raw: '0x0d05006553' });
    expect(cut!.error).toContain('Deadline at byte 0 declares 5 bytes of args; only 3 remain');
  });

  it.each(seeds())('never throws on garbage, and accounts for every byte (seed %i)', (seed) => {
    const random = seededRandom(seed);
    for (let n = 0; n < 500; n++) {
      const length = Math.floor(random() * 300);
      const bytes = Array.from({ length }, () => Math.floor(random() * 256));
      const program = `0x${bytes.map((b) => b.toString(16).padStart(2, '0')).join('')}` as Hex;
      const decoded = decodeProgram(program);
      let offset = 0;
      for (const i of decoded) {
        expect(i.offset).toBe(offset);
        expect(i.ok).toBe(i.error === null);
        offset += i.raw ? (i.raw.length - 2) / 2 : 2 + (i.args.length - 2) / 2;
      }
      expect(offset).toBe(length);
      expect(() => JSON.stringify(decoded)).not.toThrow();
    }
    for (const junk of ['nonsense', '0x123', '', '0xzz', 42 as unknown as string]) {
      const [only] = decodeProgram(junk as Hex);
      expect(only).toMatchObject({ name: 'truncated', opcode: null, ok: false });
    }
  });
});
