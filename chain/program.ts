/**
 * SwapVM programs of the Aqua router (PROTOCOL.md "Program"): instructions concatenated as
 * `[opcode u8][argsLen u8][args…]`, args big-endian and fixed width.
 */
import { type Address, getAddress, type Hex, isAddress, isHex } from 'viem';

/** Opcodes of the Aqua router's instruction set (0-based, v1.0.x numbering) that this code builds. */
export const OPCODES = {
  Deadline: 13,
  XYCSwap: 17,
  Salt: 20,
  FlatFeeAmountIn: 21,
  AquaProtocolFeeAmountIn: 28,
} as const;

export type OpcodeName = keyof typeof OPCODES;

/** On-chain fee scale: 1e9 = 100%. */
export const FEE_SCALE_1E9 = 1_000_000_000;
/** The protocol fee: 0.05% on the 1e9 scale (`0x0007a120`). */
export const PROTOCOL_FEE_1E9 = 500_000;

/** API `*FeeBps` fields use the 1e7 scale (5000 = 0.05%); on chain it is 1e9, so ×100. */
export function apiFeeToOnChain(bps1e7: number): number {
  if (!Number.isSafeInteger(bps1e7) || bps1e7 < 0)
    throw new RangeError(`fee must be a non-negative integer: ${bps1e7}`);
  return bps1e7 * 100;
}

function hexUint(value: bigint, bytes: number, what: string): string {
  if (value < 0n || value >= 1n << BigInt(bytes * 8)) {
    throw new RangeError(`${what} does not fit in ${bytes * 8} bits: ${value}`);
  }
  return value.toString(16).padStart(bytes * 2, '0');
}

function instruction(opcode: number, args: string): Hex {
  const length = args.length / 2;
  if (length > 0xff) throw new RangeError(`instruction args longer than 255 bytes: ${length}`);
  return `0x${hexUint(BigInt(opcode), 1, 'opcode')}${hexUint(BigInt(length), 1, 'args length')}${args}`;
}

function fee1e9Hex(fee1e9: number): string {
  if (!Number.isSafeInteger(fee1e9) || fee1e9 < 0 || fee1e9 > FEE_SCALE_1E9) {
    throw new RangeError(`fee must be an integer in [0, 1e9]: ${fee1e9}`);
  }
  return hexUint(BigInt(fee1e9), 4, 'fee');
}

/** Deadline (13): uint40 unix seconds; the swap reverts once block.timestamp is past it. */
export function deadline(unixSeconds: bigint): Hex {
  return instruction(OPCODES.Deadline, hexUint(unixSeconds, 5, 'deadline'));
}

/** XYCSwap (17): x·y = k over the strategy's virtual balances; no args. */
export function xycSwap(): Hex {
  return instruction(OPCODES.XYCSwap, '');
}

/** Salt (20): a no-op uint64 that makes the strategy bytes (and so its hash) unique. */
export function salt(value: bigint): Hex {
  return instruction(OPCODES.Salt, hexUint(value, 8, 'salt'));
}

/** FlatFeeAmountIn (21): the maker's LP fee (1e9 scale, rounded up); it stays in the pool. */
export function flatFeeAmountIn(fee1e9: number): Hex {
  return instruction(OPCODES.FlatFeeAmountIn, fee1e9Hex(fee1e9));
}

/** AquaProtocolFeeAmountIn (28): uint32 fee (1e9 scale, rounded down) then the 20-byte receiver. */
export function aquaProtocolFeeAmountIn(fee1e9: number, receiver: Address): Hex {
  if (!isAddress(receiver, { strict: false })) throw new TypeError(`invalid fee receiver: ${receiver}`);
  return instruction(OPCODES.AquaProtocolFeeAmountIn, fee1e9Hex(fee1e9) + receiver.slice(2).toLowerCase());
}

export function buildProgram(instructions: readonly Hex[]): Hex {
  return `0x${instructions.map((i) => i.slice(2)).join('')}`.toLowerCase() as Hex;
}

type Known<N extends OpcodeName, D> = {
  opcode: (typeof OPCODES)[N];
  name: N;
  args: Hex;
  /** Absent when the args do not have the instruction's width. */
  decoded?: D;
};

export type ProgramInstruction =
  | Known<'Deadline', { deadline: bigint }>
  | Known<'XYCSwap', Record<string, never>>
  | Known<'Salt', { salt: bigint }>
  | Known<'FlatFeeAmountIn', { fee1e9: number }>
  | Known<'AquaProtocolFeeAmountIn', { fee1e9: number; receiver: Address }>
  /** An opcode this code does not model (e.g. PeggedSwap 31): kept raw. */
  | { opcode: number; name: 'unknown'; args: Hex }
  /** Trailing bytes that do not form a whole instruction (or input that is not hex at all). */
  | { opcode: number | null; name: 'truncated'; args: Hex; raw: Hex };

function decodeOne(opcode: number, args: string): ProgramInstruction {
  const argsHex = `0x${args}` as Hex;
  const bytes = args.length / 2;
  switch (opcode) {
    case OPCODES.Deadline:
      return bytes === 5
        ? { opcode, name: 'Deadline', args: argsHex, decoded: { deadline: BigInt(argsHex) } }
        : { opcode, name: 'Deadline', args: argsHex };
    case OPCODES.XYCSwap:
      return bytes === 0
        ? { opcode, name: 'XYCSwap', args: argsHex, decoded: {} }
        : { opcode, name: 'XYCSwap', args: argsHex };
    case OPCODES.Salt:
      return bytes > 0 && bytes <= 32
        ? { opcode, name: 'Salt', args: argsHex, decoded: { salt: BigInt(argsHex) } }
        : { opcode, name: 'Salt', args: argsHex };
    case OPCODES.FlatFeeAmountIn:
      return bytes === 4
        ? { opcode, name: 'FlatFeeAmountIn', args: argsHex, decoded: { fee1e9: Number.parseInt(args, 16) } }
        : { opcode, name: 'FlatFeeAmountIn', args: argsHex };
    case OPCODES.AquaProtocolFeeAmountIn:
      return bytes === 24
        ? {
            opcode,
            name: 'AquaProtocolFeeAmountIn',
            args: argsHex,
            decoded: {
              fee1e9: Number.parseInt(args.slice(0, 8), 16),
              receiver: getAddress(`0x${args.slice(8)}`),
            },
          }
        : { opcode, name: 'AquaProtocolFeeAmountIn', args: argsHex };
    default:
      return { opcode, name: 'unknown', args: argsHex };
  }
}

/**
 * Splits a program into instructions. Never throws: unknown opcodes come back raw and bytes that do
 * not form a whole instruction come back as a final `truncated` entry.
 */
export function decodeProgram(program: Hex): ProgramInstruction[] {
  if (typeof program !== 'string' || !isHex(program, { strict: true }) || program.length % 2 !== 0) {
    return [{ opcode: null, name: 'truncated', args: '0x', raw: String(program) as Hex }];
  }
  const hex = program.slice(2).toLowerCase();
  const out: ProgramInstruction[] = [];
  let pc = 0; // in hex characters
  while (pc < hex.length) {
    const opcode = Number.parseInt(hex.slice(pc, pc + 2), 16);
    if (hex.length - pc < 4) {
      out.push({ opcode, name: 'truncated', args: '0x', raw: `0x${hex.slice(pc)}` });
      break;
    }
    const argsLength = Number.parseInt(hex.slice(pc + 2, pc + 4), 16);
    const end = pc + 4 + argsLength * 2;
    if (end > hex.length) {
      out.push({ opcode, name: 'truncated', args: `0x${hex.slice(pc + 4)}`, raw: `0x${hex.slice(pc)}` });
      break;
    }
    out.push(decodeOne(opcode, hex.slice(pc + 4, end)));
    pc = end;
  }
  return out;
}
