import { z } from 'zod';
import { ROUTER_TABLE, TABLE_SIZE } from '../../chain/instructions.js';
import { address, component } from './common.js';

/** The `decoded` member of /api/strategy-detail: the shipped order and its program, instruction by instruction. */

const hex = z.string().regex(/^0x([0-9a-fA-F]{2})*$/);

const programArg = component(
  'ProgramArg',
  z.object({
    name: z.string().meta({ examples: ['fee1e9'] }),
    type: z.enum(['uint16', 'uint32', 'uint40', 'uint64', 'uint256', 'address', 'bytes']).meta({
      description: 'Big-endian fixed-width uint, a 20-byte address, or bytes (the rest of the args).',
    }),
    value: z.string().meta({
      description: 'uints in decimal, addresses checksummed, bytes as 0x hex.',
      examples: ['500000'],
    }),
  }),
);

export const programInstruction = component(
  'ProgramInstruction',
  z
    .object({
      offset: z
        .int()
        .min(0)
        .meta({ description: 'Byte offset of the opcode (what a Jump’s nextPC points at).' }),
      opcode: z
        .int()
        .min(0)
        .max(255)
        .nullable()
        .meta({ description: 'Null only when the program is not hex bytes.' }),
      name: z.string().meta({
        description: `The instruction of the ${ROUTER_TABLE} table (opcodes 0-${TABLE_SIZE - 1}; \`Reserved\` for its no-op slots), \`unknown\` for an opcode outside it, \`truncated\` for bytes that do not form a whole instruction.`,
        examples: ['AquaProtocolFeeAmountIn'],
      }),
      args: hex.meta({ description: 'The raw argument bytes.' }),
      decoded: z
        .record(z.string(), z.union([z.number(), z.string()]))
        .optional()
        .meta({
          description:
            'The arguments by name, present when they decode: uints up to 32 bits as numbers, wider ones as decimal strings, addresses checksummed, bytes as hex.',
          examples: [{ fee1e9: 500000, receiver: '0x00000000000000000000000000000000000000A1' }],
        }),
      typedArgs: z
        .array(programArg)
        .meta({ description: 'The arguments in layout order; empty when not decoded.' }),
      ok: z.boolean().meta({
        description: 'False for an unknown opcode, truncated bytes, or args that do not match the layout.',
      }),
      error: z.string().nullable().meta({ description: 'Why the instruction did not decode.' }),
      raw: hex.optional().meta({ description: 'For `truncated`: the bytes left from its offset.' }),
    })
    .meta({ description: 'One instruction: `[opcode u8][argsLen u8][args]`.' }),
);

export const decodedStrategy = component(
  'DecodedStrategy',
  z
    .object({
      order: z
        .object({
          maker: address,
          traits: z.string().regex(/^[0-9]+$/),
          useAqua: z.boolean(),
          data: hex.meta({ description: 'The program bytes.' }),
        })
        .nullable(),
      program: z.array(programInstruction),
    })
    .meta({
      description:
        'The shipped order (maker, traits) and its program decoded by the router instruction table; never fails, marks what it cannot read.',
    }),
);
