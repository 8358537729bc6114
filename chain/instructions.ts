/**
 * The instruction table of the AquaSwapVMRouter v1.0.1 (the deployed v1.0.2 has the same layout), as
 * data: opcode → name and argument layout. Facts read from the public 1inch/swap-vm sources
 * (`AquaOpcodes._opcodes()` and each instruction's `@param args.*` parsing); numbering 0-based as in
 * PROTOCOL.md. The router's `_opcodes()` array has 34 entries: 0–9 (the debug bank) and 22–26 are
 * `_notInstruction` no-ops, and an opcode of 34 or more is outside the table (the router reverts).
 *
 * Limit-order instructions (LimitSwap, Invalidators, MinRate, DutchAuction, TWAP, Balances…) belong to
 * the other routers' tables, not to this one: on the Aqua router those bytes are other opcodes.
 */

/** Argument types: big-endian fixed-width integers, a 20-byte address, or `bytes` (the rest). */
export type ArgType = 'uint16' | 'uint32' | 'uint40' | 'uint64' | 'uint256' | 'address' | 'bytes';

export interface ArgLayout {
  readonly name: string;
  readonly type: ArgType;
}

/** What an instruction does to a swap, for readers (quote fee walks stop at the first `curve`). */
export type InstructionKind = 'control' | 'guard' | 'curve' | 'liquidity' | 'fee' | 'noop' | 'extension';

export interface InstructionSpec {
  readonly opcode: number;
  readonly name: string;
  readonly kind: InstructionKind;
  /** The router's Solidity function, for a reader who checks the source. */
  readonly source: string;
  /** In order; a `bytes` argument is last and takes the remaining bytes (possibly none). */
  readonly args: readonly ArgLayout[];
}

export const ROUTER_TABLE = 'AquaSwapVMRouter v1.0.1';
/** Entries in the router's table (opcodes 0..33). */
export const TABLE_SIZE = 34;

/** Byte width of each fixed type. */
export const ARG_WIDTH: Readonly<Record<Exclude<ArgType, 'bytes'>, number>> = {
  uint16: 2,
  uint32: 4,
  uint40: 5,
  uint64: 8,
  uint256: 32,
  address: 20,
};

const arg = (name: string, type: ArgType): ArgLayout => ({ name, type });
/** Fees are on the 1e9 scale (1e9 = 100%); the source calls the field `feeBps`. */
const fee1e9 = arg('fee1e9', 'uint32');
const token = arg('token', 'address');

const NAMED: readonly InstructionSpec[] = [
  { opcode: 10, name: 'Jump', kind: 'control', source: 'Controls._jump', args: [arg('nextPC', 'uint16')] },
  {
    opcode: 11,
    name: 'JumpIfTokenIn',
    kind: 'control',
    source: 'Controls._jumpIfTokenIn',
    args: [token, arg('nextPC', 'uint16')],
  },
  {
    opcode: 12,
    name: 'JumpIfTokenOut',
    kind: 'control',
    source: 'Controls._jumpIfTokenOut',
    args: [token, arg('nextPC', 'uint16')],
  },
  {
    opcode: 13,
    name: 'Deadline',
    kind: 'guard',
    source: 'Controls._deadline',
    args: [arg('deadline', 'uint40')],
  },
  {
    opcode: 14,
    name: 'OnlyTakerTokenBalanceNonZero',
    kind: 'guard',
    source: 'Controls._onlyTakerTokenBalanceNonZero',
    args: [token],
  },
  {
    opcode: 15,
    name: 'OnlyTakerTokenBalanceGte',
    kind: 'guard',
    source: 'Controls._onlyTakerTokenBalanceGte',
    args: [token, arg('minAmount', 'uint256')],
  },
  {
    opcode: 16,
    name: 'OnlyTakerTokenSupplyShareGte',
    kind: 'guard',
    source: 'Controls._onlyTakerTokenSupplyShareGte',
    args: [token, arg('minShareE18', 'uint64')],
  },
  { opcode: 17, name: 'XYCSwap', kind: 'curve', source: 'XYCSwap._xycSwapXD', args: [] },
  {
    opcode: 18,
    name: 'XYCConcentrateGrowLiquidity2D',
    kind: 'liquidity',
    source: 'XYCConcentrate._xycConcentrateGrowLiquidity2D',
    args: [arg('sqrtPriceMin', 'uint256'), arg('sqrtPriceMax', 'uint256')],
  },
  { opcode: 19, name: 'Decay', kind: 'liquidity', source: 'Decay._decayXD', args: [arg('period', 'uint16')] },
  { opcode: 20, name: 'Salt', kind: 'noop', source: 'Controls._salt', args: [arg('salt', 'bytes')] },
  { opcode: 21, name: 'FlatFeeAmountIn', kind: 'fee', source: 'Fee._flatFeeAmountInXD', args: [fee1e9] },
  {
    opcode: 27,
    name: 'ProtocolFeeAmountIn',
    kind: 'fee',
    source: 'Fee._protocolFeeAmountInXD',
    args: [fee1e9, arg('receiver', 'address')],
  },
  {
    opcode: 28,
    name: 'AquaProtocolFeeAmountIn',
    kind: 'fee',
    source: 'Fee._aquaProtocolFeeAmountInXD',
    args: [fee1e9, arg('receiver', 'address')],
  },
  {
    opcode: 29,
    name: 'DynamicProtocolFeeAmountIn',
    kind: 'fee',
    source: 'Fee._dynamicProtocolFeeAmountInXD',
    args: [arg('feeProvider', 'address')],
  },
  {
    opcode: 30,
    name: 'AquaDynamicProtocolFeeAmountIn',
    kind: 'fee',
    source: 'Fee._aquaDynamicProtocolFeeAmountInXD',
    args: [arg('feeProvider', 'address')],
  },
  {
    opcode: 31,
    name: 'PeggedSwapGrowPriceRange2D',
    kind: 'curve',
    source: 'PeggedSwap._peggedSwapGrowPriceRange2D',
    args: ['x0', 'y0', 'linearWidth', 'rateLt', 'rateGt'].map((n) => arg(n, 'uint256')),
  },
  {
    opcode: 32,
    name: 'Extruction',
    kind: 'extension',
    source: 'Extruction._extruction',
    args: [arg('target', 'address'), arg('extructionArgs', 'bytes')],
  },
  {
    opcode: 33,
    name: 'OnlyTxOriginTokenBalanceNonZero',
    kind: 'guard',
    source: 'Controls._onlyTxOriginTokenBalanceNonZero',
    args: [token],
  },
];

/** A `_notInstruction` slot: the router runs nothing and reads no args. */
function reserved(opcode: number): InstructionSpec {
  return {
    opcode,
    name: 'Reserved',
    kind: 'noop',
    source: '_notInstruction',
    args: [arg('ignored', 'bytes')],
  };
}

/** Every opcode of the table, indexed by opcode (0..TABLE_SIZE-1). */
export const INSTRUCTIONS: readonly InstructionSpec[] = Array.from(
  { length: TABLE_SIZE },
  (_, opcode) => NAMED.find((s) => s.opcode === opcode) ?? reserved(opcode),
);

/** The table entry of an opcode; undefined outside the table. */
export function instructionSpec(opcode: number): InstructionSpec | undefined {
  return INSTRUCTIONS[opcode];
}

/** The opcode of a named instruction (throws on a name the table does not hold: a programming error). */
export function opcodeOf(name: string): number {
  const spec = NAMED.find((s) => s.name === name);
  if (!spec) throw new Error(`no instruction ${name} in the ${ROUTER_TABLE} table`);
  return spec.opcode;
}
