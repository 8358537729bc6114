/**
 * ABIs of the contracts the service talks to (PROTOCOL.md), `as const` for viem's type inference.
 * Events have no indexed arguments: filter on topic0 and decode the data.
 */

const orderTuple = {
  type: 'tuple',
  name: 'order',
  internalType: 'struct Order',
  components: [
    { type: 'address', name: 'maker' },
    { type: 'uint256', name: 'traits' },
    { type: 'bytes', name: 'data' },
  ],
} as const;

export const aquaAbi = [
  {
    type: 'function',
    name: 'ship',
    stateMutability: 'nonpayable',
    inputs: [
      { type: 'address', name: 'app' },
      { type: 'bytes', name: 'strategy' },
      { type: 'address[]', name: 'tokens' },
      { type: 'uint256[]', name: 'amounts' },
    ],
    outputs: [{ type: 'bytes32', name: 'strategyHash' }],
  },
  {
    type: 'function',
    name: 'dock',
    stateMutability: 'nonpayable',
    inputs: [
      { type: 'address', name: 'app' },
      { type: 'bytes32', name: 'strategyHash' },
      { type: 'address[]', name: 'tokens' },
    ],
    outputs: [],
  },
  {
    type: 'function',
    name: 'pull',
    stateMutability: 'nonpayable',
    inputs: [
      { type: 'address', name: 'maker' },
      { type: 'bytes32', name: 'strategyHash' },
      { type: 'address', name: 'token' },
      { type: 'uint256', name: 'amount' },
      { type: 'address', name: 'to' },
    ],
    outputs: [],
  },
  {
    type: 'function',
    name: 'push',
    stateMutability: 'nonpayable',
    inputs: [
      { type: 'address', name: 'maker' },
      { type: 'address', name: 'app' },
      { type: 'bytes32', name: 'strategyHash' },
      { type: 'address', name: 'token' },
      { type: 'uint256', name: 'amount' },
    ],
    outputs: [],
  },
  {
    type: 'function',
    name: 'rawBalances',
    stateMutability: 'view',
    inputs: [
      { type: 'address', name: 'maker' },
      { type: 'address', name: 'app' },
      { type: 'bytes32', name: 'strategyHash' },
      { type: 'address', name: 'token' },
    ],
    outputs: [
      { type: 'uint248', name: 'balance' },
      { type: 'uint8', name: 'tokensCount' },
    ],
  },
  {
    type: 'function',
    name: 'safeBalances',
    stateMutability: 'view',
    inputs: [
      { type: 'address', name: 'maker' },
      { type: 'address', name: 'app' },
      { type: 'bytes32', name: 'strategyHash' },
      { type: 'address', name: 'token0' },
      { type: 'address', name: 'token1' },
    ],
    outputs: [
      { type: 'uint256', name: 'balance0' },
      { type: 'uint256', name: 'balance1' },
    ],
  },
  {
    type: 'event',
    name: 'Shipped',
    anonymous: false,
    inputs: [
      { type: 'address', name: 'maker', indexed: false },
      { type: 'address', name: 'app', indexed: false },
      { type: 'bytes32', name: 'strategyHash', indexed: false },
      { type: 'bytes', name: 'strategy', indexed: false },
    ],
  },
  {
    type: 'event',
    name: 'Docked',
    anonymous: false,
    inputs: [
      { type: 'address', name: 'maker', indexed: false },
      { type: 'address', name: 'app', indexed: false },
      { type: 'bytes32', name: 'strategyHash', indexed: false },
    ],
  },
  {
    type: 'event',
    name: 'Pulled',
    anonymous: false,
    inputs: [
      { type: 'address', name: 'maker', indexed: false },
      { type: 'address', name: 'app', indexed: false },
      { type: 'bytes32', name: 'strategyHash', indexed: false },
      { type: 'address', name: 'token', indexed: false },
      { type: 'uint256', name: 'amount', indexed: false },
    ],
  },
  {
    type: 'event',
    name: 'Pushed',
    anonymous: false,
    inputs: [
      { type: 'address', name: 'maker', indexed: false },
      { type: 'address', name: 'app', indexed: false },
      { type: 'bytes32', name: 'strategyHash', indexed: false },
      { type: 'address', name: 'token', indexed: false },
      { type: 'uint256', name: 'amount', indexed: false },
    ],
  },
] as const;

const swapInputs = [
  orderTuple,
  { type: 'address', name: 'tokenIn' },
  { type: 'address', name: 'tokenOut' },
  { type: 'uint256', name: 'amount' },
  { type: 'bytes', name: 'takerTraitsAndData' },
] as const;

const swapOutputs = [
  { type: 'uint256', name: 'amountIn' },
  { type: 'uint256', name: 'amountOut' },
  { type: 'bytes32', name: 'orderHash' },
] as const;

/**
 * The Aqua SwapVM router. `quote` is declared `view` so `readContract` (an eth_call) can be used;
 * state mutability is not part of the calldata, so this is byte-compatible with the real router.
 */
export const routerAbi = [
  {
    type: 'function',
    name: 'quote',
    stateMutability: 'view',
    inputs: swapInputs,
    outputs: swapOutputs,
  },
  {
    type: 'function',
    name: 'swap',
    stateMutability: 'nonpayable',
    inputs: swapInputs,
    outputs: swapOutputs,
  },
  {
    type: 'function',
    name: 'hash',
    stateMutability: 'view',
    inputs: [orderTuple],
    outputs: [{ type: 'bytes32', name: '' }],
  },
  {
    type: 'event',
    name: 'Swapped',
    anonymous: false,
    inputs: [
      { type: 'bytes32', name: 'orderHash', indexed: false },
      { type: 'address', name: 'maker', indexed: false },
      { type: 'address', name: 'taker', indexed: false },
      { type: 'address', name: 'tokenIn', indexed: false },
      { type: 'address', name: 'tokenOut', indexed: false },
      { type: 'uint256', name: 'amountIn', indexed: false },
      { type: 'uint256', name: 'amountOut', indexed: false },
    ],
  },
] as const;

/** Standard ERC20 plus the devnet TestToken's open `mint(address,uint256)`. */
export const erc20Abi = [
  {
    type: 'function',
    name: 'name',
    stateMutability: 'view',
    inputs: [],
    outputs: [{ type: 'string', name: '' }],
  },
  {
    type: 'function',
    name: 'symbol',
    stateMutability: 'view',
    inputs: [],
    outputs: [{ type: 'string', name: '' }],
  },
  {
    type: 'function',
    name: 'decimals',
    stateMutability: 'view',
    inputs: [],
    outputs: [{ type: 'uint8', name: '' }],
  },
  {
    type: 'function',
    name: 'totalSupply',
    stateMutability: 'view',
    inputs: [],
    outputs: [{ type: 'uint256', name: '' }],
  },
  {
    type: 'function',
    name: 'balanceOf',
    stateMutability: 'view',
    inputs: [{ type: 'address', name: 'owner' }],
    outputs: [{ type: 'uint256', name: '' }],
  },
  {
    type: 'function',
    name: 'allowance',
    stateMutability: 'view',
    inputs: [
      { type: 'address', name: 'owner' },
      { type: 'address', name: 'spender' },
    ],
    outputs: [{ type: 'uint256', name: '' }],
  },
  {
    type: 'function',
    name: 'approve',
    stateMutability: 'nonpayable',
    inputs: [
      { type: 'address', name: 'spender' },
      { type: 'uint256', name: 'amount' },
    ],
    outputs: [{ type: 'bool', name: '' }],
  },
  {
    type: 'function',
    name: 'transfer',
    stateMutability: 'nonpayable',
    inputs: [
      { type: 'address', name: 'to' },
      { type: 'uint256', name: 'amount' },
    ],
    outputs: [{ type: 'bool', name: '' }],
  },
  {
    type: 'function',
    name: 'transferFrom',
    stateMutability: 'nonpayable',
    inputs: [
      { type: 'address', name: 'from' },
      { type: 'address', name: 'to' },
      { type: 'uint256', name: 'amount' },
    ],
    outputs: [{ type: 'bool', name: '' }],
  },
  {
    type: 'function',
    name: 'mint',
    stateMutability: 'nonpayable',
    inputs: [
      { type: 'address', name: 'to' },
      { type: 'uint256', name: 'amount' },
    ],
    outputs: [],
  },
  {
    type: 'event',
    name: 'Transfer',
    anonymous: false,
    inputs: [
      { type: 'address', name: 'from', indexed: true },
      { type: 'address', name: 'to', indexed: true },
      { type: 'uint256', name: 'value', indexed: false },
    ],
  },
  {
    type: 'event',
    name: 'Approval',
    anonymous: false,
    inputs: [
      { type: 'address', name: 'owner', indexed: true },
      { type: 'address', name: 'spender', indexed: true },
      { type: 'uint256', name: 'value', indexed: false },
    ],
  },
] as const;

const call3Result = {
  type: 'tuple[]',
  name: 'returnData',
  components: [
    { type: 'bool', name: 'success' },
    { type: 'bytes', name: 'returnData' },
  ],
} as const;

/** Multicall3 (the subset viem and the loaders use). */
export const multicall3Abi = [
  {
    type: 'function',
    name: 'aggregate3',
    stateMutability: 'payable',
    inputs: [
      {
        type: 'tuple[]',
        name: 'calls',
        components: [
          { type: 'address', name: 'target' },
          { type: 'bool', name: 'allowFailure' },
          { type: 'bytes', name: 'callData' },
        ],
      },
    ],
    outputs: [call3Result],
  },
  {
    type: 'function',
    name: 'getEthBalance',
    stateMutability: 'view',
    inputs: [{ type: 'address', name: 'addr' }],
    outputs: [{ type: 'uint256', name: 'balance' }],
  },
  {
    type: 'function',
    name: 'getBlockNumber',
    stateMutability: 'view',
    inputs: [],
    outputs: [{ type: 'uint256', name: 'blockNumber' }],
  },
  {
    type: 'function',
    name: 'getCurrentBlockTimestamp',
    stateMutability: 'view',
    inputs: [],
    outputs: [{ type: 'uint256', name: 'timestamp' }],
  },
  {
    type: 'function',
    name: 'getChainId',
    stateMutability: 'view',
    inputs: [],
    outputs: [{ type: 'uint256', name: 'chainid' }],
  },
] as const;

/** The reads of a Chainlink aggregator (AggregatorV3Interface) that price a token (chain/prices.ts). */
export const aggregatorV3Abi = [
  {
    type: 'function',
    name: 'decimals',
    stateMutability: 'view',
    inputs: [],
    outputs: [{ type: 'uint8' }],
  },
  {
    type: 'function',
    name: 'latestRoundData',
    stateMutability: 'view',
    inputs: [],
    outputs: [
      { type: 'uint80', name: 'roundId' },
      { type: 'int256', name: 'answer' },
      { type: 'uint256', name: 'startedAt' },
      { type: 'uint256', name: 'updatedAt' },
      { type: 'uint80', name: 'answeredInRound' },
    ],
  },
  {
    type: 'function',
    name: 'setAnswer',
    stateMutability: 'nonpayable',
    inputs: [{ type: 'int256', name: 'answer' }],
    outputs: [],
  },
] as const;
