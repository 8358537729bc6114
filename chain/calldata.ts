/** Calldata of the transactions the service prepares (never signs): approve, ship, dock, quote, swap. */
import { type Address, encodeFunctionData, type Hex } from 'viem';
import { aquaAbi, erc20Abi, routerAbi } from './abi.js';
import type { Order } from './order.js';

export function approveCalldata(spender: Address, amount: bigint): Hex {
  return encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [spender, amount] });
}

export function shipCalldata(params: {
  app: Address;
  strategy: Hex;
  tokens: readonly Address[];
  amounts: readonly bigint[];
}): Hex {
  if (params.tokens.length !== params.amounts.length)
    throw new RangeError('tokens and amounts differ in length');
  return encodeFunctionData({
    abi: aquaAbi,
    functionName: 'ship',
    args: [params.app, params.strategy, params.tokens, params.amounts],
  });
}

export function dockCalldata(params: { app: Address; strategyHash: Hex; tokens: readonly Address[] }): Hex {
  return encodeFunctionData({
    abi: aquaAbi,
    functionName: 'dock',
    args: [params.app, params.strategyHash, params.tokens],
  });
}

export type SwapParams = {
  order: Order;
  tokenIn: Address;
  tokenOut: Address;
  amount: bigint;
  takerTraits: Hex;
};

function swapArgs(p: SwapParams) {
  return [p.order, p.tokenIn, p.tokenOut, p.amount, p.takerTraits] as const;
}

export function quoteCalldata(params: SwapParams): Hex {
  return encodeFunctionData({ abi: routerAbi, functionName: 'quote', args: swapArgs(params) });
}

export function swapCalldata(params: SwapParams): Hex {
  return encodeFunctionData({ abi: routerAbi, functionName: 'swap', args: swapArgs(params) });
}
