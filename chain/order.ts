/**
 * SwapVM orders as Aqua strategies: the strategy bytes shipped to Aqua are `abi.encode(order)` of ONE
 * `(address maker, uint256 traits, bytes data)` tuple, so strategyHash = keccak256(strategy) = router.hash(order).
 */
import { type Address, decodeAbiParameters, encodeAbiParameters, type Hex, isHex } from 'viem';
import { keccak256 } from './keccak.js';

/** Maker traits bit 254: the order's balances live in Aqua. */
export const AQUA_TRAITS = 1n << 254n;
/** Maker traits bit 255: unwrap WETH on output (never set by this service). */
export const UNWRAP_WETH_TRAIT = 1n << 255n;
/** Maker traits bits 0–159: receiver (0 = the maker). */
export const RECEIVER_MASK = (1n << 160n) - 1n;

export type Order = { maker: Address; traits: bigint; data: Hex };

const orderParameters = [
  {
    type: 'tuple',
    components: [
      { type: 'address', name: 'maker' },
      { type: 'uint256', name: 'traits' },
      { type: 'bytes', name: 'data' },
    ],
  },
] as const;

export function encodeStrategy(order: Order): Hex {
  return encodeAbiParameters(orderParameters, [order]);
}

/**
 * Decodes strategy bytes into an order; `null` when they are not one. By default the input must be
 * the canonical encoding (what `encodeStrategy` produces): only then does the router's `hash(order)`
 * equal the shipped strategy hash, so anything else is not a tradable order. `strict: false` accepts
 * any bytes that decode (trailing data, dirty padding).
 */
export function decodeStrategy(strategy: Hex, options: { strict?: boolean } = {}): Order | null {
  if (typeof strategy !== 'string' || !isHex(strategy, { strict: true }) || strategy.length % 2 !== 0)
    return null;
  try {
    const [decoded] = decodeAbiParameters(orderParameters, strategy);
    const order: Order = { maker: decoded.maker, traits: decoded.traits, data: decoded.data };
    if (options.strict !== false && encodeStrategy(order).toLowerCase() !== strategy.toLowerCase())
      return null;
    return order;
  } catch {
    return null;
  }
}

export function strategyHashOf(strategy: Hex): Hex {
  return keccak256(strategy);
}

/** keccak256(abi.encode(order)): the router's `hash(order)` and the `orderHash` of `Swapped`. */
export function orderHashOf(order: Order): Hex {
  return keccak256(encodeStrategy(order));
}

/** A plain Aqua order per PROTOCOL.md: bit 254 set, bit 255 clear, receiver 0 or the maker. */
export function isPlainAquaOrder(order: Order): boolean {
  const receiver = order.traits & RECEIVER_MASK;
  return (
    (order.traits & AQUA_TRAITS) !== 0n &&
    (order.traits & UNWRAP_WETH_TRAIT) === 0n &&
    (receiver === 0n || receiver === BigInt(order.maker))
  );
}
