import type { DecodedArg, DecodedProgram, ProgramInstruction } from '../chain/program.js';
import { priceRangeUsd, strategyPriceRange, strategyProgram } from '../resolvers/catalogue/detail.js';
import { builder } from './builder.js';
import { Strategy } from './strategy.js';
import { as } from './valueFormats.js';

const ProgramArg = builder.objectRef<DecodedArg>('ProgramArg').implement({
  description: 'One argument of an instruction, read along the router table’s layout.',
  fields: (t) => ({
    name: t.exposeString('name', { description: "The argument's name in the instruction table." }),
    type: t.exposeString('type', {
      description:
        'uint16, uint32, uint40, uint64, uint256 (big-endian), address (20 bytes) or bytes (the rest).',
    }),
    value: t.exposeString('value', {
      description: 'uints in decimal, addresses checksummed, bytes as 0x hex.',
    }),
  }),
});

const ProgramInstructionRef = builder.objectRef<ProgramInstruction>('ProgramInstruction').implement({
  description: 'One instruction of a SwapVM program: `[opcode u8][argsLen u8][args]`.',
  fields: (t) => ({
    offset: t.exposeInt('offset', {
      description: 'Byte offset of the opcode in the program (what a Jump’s nextPC points at).',
    }),
    opcode: t.int({
      nullable: true,
      description: 'Null only when the program is not hex bytes.',
      resolve: (i) => i.opcode,
    }),
    name: t.exposeString('name', {
      description:
        'The instruction of the router table (Reserved for its no-op slots); `unknown` for an opcode outside the table; `truncated` for bytes that do not form a whole instruction.',
    }),
    argsHex: t.string({ description: 'The raw argument bytes.', resolve: (i) => i.args }),
    args: t.field({
      type: [ProgramArg],
      description: 'The arguments by the table’s layout; empty when not decoded.',
      resolve: (i) => i.typedArgs,
    }),
    decoded: t.boolean({
      description: 'False for an unknown opcode, truncated bytes, or args that do not match the layout.',
      resolve: (i) => i.ok,
    }),
    error: t.string({ nullable: true, description: 'Why it did not decode.', resolve: (i) => i.error }),
    raw: t.string({
      nullable: true,
      description: 'For `truncated`: the bytes left from its offset; null otherwise.',
      resolve: (i) => i.raw ?? null,
    }),
  }),
});

export const StrategyProgram = builder.objectRef<DecodedProgram>('StrategyProgram').implement({
  description:
    "The order's program decoded by the router's instruction table; never fails, marks what it cannot read.",
  fields: (t) => ({
    table: t.exposeString('table', { description: 'The instruction table used (router and version).' }),
    bytes: t.exposeInt('bytes', { description: 'Program length in bytes.' }),
    decoded: t.exposeBoolean('decoded', { description: 'True when every instruction decoded.' }),
    instructions: t.field({
      type: [ProgramInstructionRef],
      resolve: (p) => p.instructions,
      description: 'The instructions in program order.',
    }),
  }),
});

builder.objectField(Strategy, 'program', (t) =>
  t.field({
    type: StrategyProgram,
    nullable: true,
    description:
      'The program of the shipped order, typed instruction by instruction; null when the bytes are not an order.',
    resolve: (s, _a, ctx) => strategyProgram(ctx, s),
  }),
);

const StrategyPriceRange = builder
  .objectRef<{ of: string | null; in: string | null; min: number; max: number }>('StrategyPriceRange')
  .implement({
    description:
      'The price range a concentrated program trades in: the price of one whole token `of` (tokenA, the lower address) in token `in`.',
    fields: (t) => ({
      of: t.exposeString('of', { nullable: true, description: 'The token priced (its symbol).' }),
      in: t.exposeString('in', { nullable: true, description: 'The token it is priced in (its symbol).' }),
      min: t.exposeFloat('min', { description: 'The lowest price of the range.' }),
      max: t.exposeFloat('max', { description: 'The highest price of the range.' }),
      minUsd: t.float({
        nullable: true,
        description:
          'The lowest price of the range in USD: `min` times the current USD price of `in`; null when `in` has none.',
        extensions: as('usd'),
        resolve: (r, _a, ctx) => priceRangeUsd(ctx, r, r.min),
      }),
      maxUsd: t.float({
        nullable: true,
        description:
          'The highest price of the range in USD: `max` times the current USD price of `in`; null when `in` has none.',
        extensions: as('usd'),
        resolve: (r, _a, ctx) => priceRangeUsd(ctx, r, r.max),
      }),
    }),
  });

builder.objectField(Strategy, 'priceRange', (t) =>
  t.field({
    type: StrategyPriceRange,
    nullable: true,
    description: 'For a concentrated program, its range in prices; null for any other.',
    resolve: (s, _a, ctx) => strategyPriceRange(ctx, s),
  }),
);
