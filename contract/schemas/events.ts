import { z } from 'zod';
import { address, baseUnits, component, dateTime, hash32, usd } from './common.js';

/** GET /api/events: the messages of the catalogue's live stream (Server-Sent Events). */

const eventId = z
  .string()
  .regex(/^[0-9]+$/)
  .meta({ description: 'The `id:` line: increasing; send it back as `Last-Event-ID` to resume.' });

const eventToken = component(
  'CatalogueEventToken',
  z.object({
    symbol: z.string().nullable().meta({ description: 'Null for a token outside the chain’s list.' }),
    address,
    amount: baseUnits,
    decimals: z.int().min(0).nullable(),
  }),
);

const common = {
  chain: z.string().meta({ description: 'Chain key (see /api/chains).', examples: ['base'] }),
  chainId: z.int().min(1),
  hash: hash32.meta({ description: 'The strategy hash.' }),
  maker: address,
  pair: z
    .string()
    .nullable()
    .meta({
      description: 'Pair key `A/B` (null for a strategy not of two tokens).',
      examples: ['USDC/USDT'],
    }),
  block: z.int().min(0),
  txHash: hash32,
  time: dateTime.meta({ description: 'The block’s time.' }),
};

const shipped = component(
  'StrategyShippedEvent',
  z.object({
    ...common,
    app: address,
    tokenA: eventToken.nullable().meta({ description: 'Lower token address; the amount shipped.' }),
    tokenB: eventToken.nullable(),
  }),
);

const swapped = component(
  'StrategySwappedEvent',
  z.object({
    ...common,
    taker: address,
    tokenIn: eventToken,
    tokenOut: eventToken,
    volumeUsd: usd.meta({ description: 'USD value of the input (0 where the token has no price).' }),
    logIndex: z.int().min(0),
  }),
);

const docked = component('StrategyDockedEvent', z.object({ ...common, app: address }));

const reset = component(
  'StreamResetEvent',
  z.object({
    reason: z.enum(['window_exceeded', 'unknown_id']).meta({
      description:
        '`window_exceeded`: events after the given id were pruned; `unknown_id`: the id is newer than any event here.',
    }),
    lastEventId: z.string().meta({ description: 'The id the client sent.' }),
    oldestResumableId: z.string().meta({ description: 'The oldest id the stream can still resume after.' }),
  }),
);

const rewound = component(
  'ChainRewoundEvent',
  z.object({
    chain: common.chain,
    chainId: common.chainId,
    reason: z.enum(['reorg', 'replaced']).meta({
      description:
        '`reorg`: blocks above `forkBlock` were reorganised away; `replaced`: the chain no longer holds the indexed history (another genesis, or a fork deeper than the kept hashes) and is indexed anew from its start.',
    }),
    forkBlock: z
      .int()
      .min(0)
      .nullable()
      .meta({ description: 'The last block both histories share; null when replaced.' }),
    strategies: z.int().min(0).meta({ description: 'Strategies removed (their ship is gone).' }),
    swaps: z.int().min(0).meta({ description: 'Swaps removed.' }),
    docks: z.int().min(0).meta({ description: 'Docks undone (the strategy is active again).' }),
    time: dateTime.meta({ description: 'When the indexer rewound.' }),
  }),
);

const message = <T extends z.ZodType>(event: string, data: T, description: string) =>
  z.object({ id: eventId, event: z.literal(event), data }).meta({ description });

export const catalogueEventMessage = component(
  'CatalogueEventMessage',
  z
    .union([
      message('strategy.shipped', shipped, 'A strategy appeared in the catalogue (Aqua `Shipped`).'),
      message('strategy.swapped', swapped, 'A swap against a catalogued strategy (router `Swapped`).'),
      message('strategy.docked', docked, 'A strategy left the catalogue (Aqua `Docked`).'),
      message(
        'chain.rewound',
        rewound,
        'Strategies, swaps or docks of this chain sent before may be gone (a reorg, or a chain replaced under the catalogue): refetch what you show of it.',
      ),
      message(
        'reset',
        reset,
        'The stream cannot resume after the id given: events were missed. Refetch what you show; the stream goes on from this id.',
      ),
    ])
    .meta({
      description:
        'One Server-Sent Events message: an `id:` line, an `event:` line and a `data:` line of JSON (shown here as the members `id`, `event` and `data`).',
    }),
);
