/**
 * SwapVM programs of the Aqua router (PROTOCOL.md "Program"): instructions concatenated as
 * `[opcode u8][argsLen u8][args…]`, args big-endian and fixed width.
 */
import { type Address, getAddress, type Hex, isAddress, isHex } from 'viem';
import {
  ARG_WIDTH,
  type ArgType,
  type InstructionSpec,
  instructionSpec,
  opcodeOf,
  ROUTER_TABLE,
  TABLE_SIZE,
} from './instructions.js';

/** Opcodes of the instructions this code builds (the whole table is chain/instructions.ts). */
export const OPCODES = {
  Deadline: opcodeOf('Deadline'),
  XYCSwap: opcodeOf('XYCSwap'),
  Salt: opcodeOf('Salt'),
  FlatFeeAmountIn: opcodeOf('FlatFeeAmountIn'),
  AquaProtocolFeeAmountIn: opcodeOf('AquaProtocolFeeAmountIn'),
} as const;

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

/**
 * Any instruction of the table by name, args by the layout's names: uints as bigint, addresses and
 * bytes as 0x hex (for programs beyond the five above: the devnet's showcase strategies).
 */
export function encodeInstruction(name: string, values: Readonly<Record<string, bigint | Hex>>): Hex {
  const spec = instructionSpec(opcodeOf(name))!;
  let args = '';
  for (const a of spec.args) {
    const value = values[a.name];
    if (value === undefined) throw new TypeError(`${name}: missing ${a.name}`);
    if (a.type === 'bytes' || a.type === 'address') {
      const ok =
        typeof value === 'string' &&
        (a.type === 'bytes' ? isHex(value) : isAddress(value, { strict: false }));
      if (!ok)
        throw new TypeError(`${name}: ${a.name} must be ${a.type === 'bytes' ? 'hex bytes' : 'an address'}`);
      args += value.slice(2).toLowerCase();
    } else {
      args += hexUint(BigInt(value), ARG_WIDTH[a.type], `${name}.${a.name}`);
    }
  }
  return instruction(spec.opcode, args);
}

export function buildProgram(instructions: readonly Hex[]): Hex {
  return `0x${instructions.map((i) => i.slice(2)).join('')}`.toLowerCase() as Hex;
}

/** One argument as read: uints in decimal, addresses checksummed, bytes as 0x hex. */
export interface DecodedArg {
  name: string;
  type: ArgType;
  value: string;
}

/**
 * One instruction of a program. `ok` is false (with `error` saying why, and no `typedArgs`) for an
 * opcode outside the router's table (`name: 'unknown'`), for bytes that do not form a whole
 * instruction (`name: 'truncated'`, the bytes in `raw`) and for args whose length does not match the
 * instruction's layout (the instruction's own name).
 */
export interface ProgramInstruction {
  /** Byte offset of the opcode in the program: what a Jump's `nextPC` points at. */
  offset: number;
  /** null only when the program is not hex bytes at all. */
  opcode: number | null;
  name: string;
  /** The raw argument bytes. */
  args: Hex;
  typedArgs: DecodedArg[];
  ok: boolean;
  error: string | null;
  raw?: Hex;
}

function layoutText(spec: InstructionSpec): string {
  if (spec.args.length === 0) return 'no args';
  return spec.args.map((a) => `${a.type} ${a.name}`).join(', ');
}

/** The args read along the instruction's layout, or why they do not fit it. */
function readArgs(spec: InstructionSpec, args: string): { typedArgs: DecodedArg[] } | { error: string } {
  const length = args.length / 2;
  const open = spec.args.at(-1)?.type === 'bytes';
  let fixed = 0;
  for (const a of spec.args) if (a.type !== 'bytes') fixed += ARG_WIDTH[a.type];
  if (open ? length < fixed : length !== fixed) {
    const want = open ? `at least ${fixed}` : String(fixed);
    return {
      error: `${spec.name} takes ${layoutText(spec)} (${want} bytes of args); got ${length} bytes`,
    };
  }
  const typedArgs: DecodedArg[] = [];
  let at = 0; // in hex characters
  for (const a of spec.args) {
    if (a.type === 'bytes') {
      typedArgs.push({ name: a.name, type: a.type, value: `0x${args.slice(at)}` });
      at = args.length;
      continue;
    }
    const hex = args.slice(at, at + ARG_WIDTH[a.type] * 2);
    at += hex.length;
    const value = a.type === 'address' ? getAddress(`0x${hex}`) : BigInt(`0x${hex}`).toString();
    typedArgs.push({ name: a.name, type: a.type, value });
  }
  return { typedArgs };
}

function decodeOne(offset: number, opcode: number, args: string): ProgramInstruction {
  const argsHex = `0x${args}` as Hex;
  const spec = instructionSpec(opcode);
  if (!spec) {
    const error = `opcode ${opcode} is outside the ${ROUTER_TABLE} table (0-${TABLE_SIZE - 1})`;
    return { offset, opcode, name: 'unknown', args: argsHex, typedArgs: [], ok: false, error };
  }
  const read = readArgs(spec, args);
  return 'error' in read
    ? { offset, opcode, name: spec.name, args: argsHex, typedArgs: [], ok: false, error: read.error }
    : { offset, opcode, name: spec.name, args: argsHex, typedArgs: read.typedArgs, ok: true, error: null };
}

function truncated(offset: number, opcode: number | null, args: string, raw: string, error: string) {
  return {
    offset,
    opcode,
    name: 'truncated',
    args: `0x${args}` as Hex,
    typedArgs: [],
    ok: false,
    error,
    raw: raw as Hex,
  } satisfies ProgramInstruction;
}

/**
 * Splits a program into the router's instructions and reads each one's args by the table
 * (chain/instructions.ts). Never throws: what it cannot decode is marked (`ok: false`, `error`).
 */
export function decodeProgram(program: Hex): ProgramInstruction[] {
  if (typeof program !== 'string' || !isHex(program, { strict: true }) || program.length % 2 !== 0) {
    const raw = String(program).slice(0, 1024);
    return [truncated(0, null, '', raw, 'the program is not a string of hex bytes')];
  }
  const hex = program.slice(2).toLowerCase();
  const out: ProgramInstruction[] = [];
  let pc = 0; // in hex characters
  while (pc < hex.length) {
    const offset = pc / 2;
    const opcode = Number.parseInt(hex.slice(pc, pc + 2), 16);
    const what = instructionSpec(opcode)?.name ?? `opcode ${opcode}`;
    if (hex.length - pc < 4) {
      out.push(
        truncated(
          offset,
          opcode,
          '',
          `0x${hex.slice(pc)}`,
          `${what} at byte ${offset} has no args-length byte`,
        ),
      );
      break;
    }
    const argsLength = Number.parseInt(hex.slice(pc + 2, pc + 4), 16);
    const end = pc + 4 + argsLength * 2;
    if (end > hex.length) {
      const left = (hex.length - pc - 4) / 2;
      out.push(
        truncated(
          offset,
          opcode,
          hex.slice(pc + 4),
          `0x${hex.slice(pc)}`,
          `${what} at byte ${offset} declares ${argsLength} bytes of args; only ${left} remain`,
        ),
      );
      break;
    }
    out.push(decodeOne(offset, opcode, hex.slice(pc + 4, end)));
    pc = end;
  }
  return out;
}

/** A decoded uint argument of an instruction; undefined when it was not decoded. */
export function uintArg(instruction: ProgramInstruction, name: string): bigint | undefined {
  const found = instruction.ok ? instruction.typedArgs.find((a) => a.name === name) : undefined;
  return found && found.type !== 'address' && found.type !== 'bytes' ? BigInt(found.value) : undefined;
}

/** A decoded address argument of an instruction; undefined when it was not decoded. */
export function addressArg(instruction: ProgramInstruction, name: string): Address | undefined {
  const found = instruction.ok ? instruction.typedArgs.find((a) => a.name === name) : undefined;
  return found?.type === 'address' ? (found.value as Address) : undefined;
}

/** A program decoded as a whole: every instruction, and whether all of them decoded. */
export interface DecodedProgram {
  table: string;
  bytes: number;
  decoded: boolean;
  instructions: ProgramInstruction[];
}

export function describeProgram(program: Hex): DecodedProgram {
  const instructions = decodeProgram(program);
  const bytes = typeof program === 'string' && isHex(program) ? Math.floor((program.length - 2) / 2) : 0;
  return { table: ROUTER_TABLE, bytes, decoded: instructions.every((i) => i.ok), instructions };
}
