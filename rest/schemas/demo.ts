import { z } from 'zod';
import { address, baseUnits, component, count, dateTime, hash32, meta } from './common.js';

/** Bodies of the demo endpoints /api/pilot and /api/balances (open bodies of SPEC §2.8). */

const tokenAmount = component(
  'DemoTokenAmount',
  z
    .object({
      symbol: z.string(),
      address: address.nullable().meta({ description: 'Null for the native currency.' }),
      decimals: z.int().min(0).nullable(),
      amount: baseUnits,
    })
    .meta({ description: 'An amount of a token, or of the native currency when `address` is null.' }),
);

const wallet = z.object({
  address,
  balances: z.array(tokenAmount).meta({ description: 'Native first, then USDC and USDT.' }),
});

const blockNumber = z.string().regex(/^[0-9]+$/);

export const pilot = component(
  'Pilot',
  z
    .looseObject({
      chain: z.string(),
      chainId: z.int(),
      name: z.string(),
      blockNumber,
      observedAt: dateTime,
      wallets: z.object({ maker: wallet, taker: wallet, feeWallet: wallet }),
      strategy: z.object({
        hash: hash32,
        maker: address,
        app: address,
        status: z.enum(['active', 'docked', 'not_shipped']),
        tokens: z.array(tokenAmount).meta({ description: "The strategy's live balances in Aqua." }),
      }),
      swaps: z.object({
        fromBlock: blockNumber,
        toBlock: blockNumber,
        blockWindow: z.int().min(1),
        count: count.meta({ description: 'Swaps in the whole window.' }),
        volume: z.array(tokenAmount).meta({ description: 'Gross amounts in, per token, over the window.' }),
        items: z
          .array(
            z.object({
              transactionHash: hash32,
              blockNumber,
              logIndex: count,
              timestamp: dateTime.nullable(),
              taker: address,
              tokenIn: tokenAmount,
              tokenOut: tokenAmount,
            }),
          )
          .meta({ description: 'The most recent swaps first.' }),
      }),
      feeReceiver: z
        .object({ balances: z.array(tokenAmount) })
        .meta({ description: "The protocol fee receiver's balances; its address is deliberately omitted." }),
    })
    .meta({
      description:
        'The test-network pilot: the demo maker, taker and fee wallets, the shipped strategy, swaps of a recent block window and the fee receiver balance.',
    }),
);

export const balances = component(
  'DemoBalances',
  z
    .looseObject({
      chain: z.string(),
      chainId: z.int(),
      name: z.string(),
      accounts: z.array(z.object({ address, native: tokenAmount, tokens: z.array(tokenAmount) })),
    })
    .meta({ description: 'USDC, USDT and native balances per address on the test network.' }),
);

export const pilotBody = component('PilotResponse', z.looseObject({ data: pilot, meta }));
export const balancesBody = component('BalancesResponse', z.looseObject({ data: balances, meta }));
