/**
 * A prepared answer's steps as one EIP-5792 call bundle, ready for `wallet_sendCalls`: the same
 * transactions in the same order, with the chain id and values in hex as the method takes them.
 */
import { type Hex, numberToHex } from 'viem';

export interface WalletCall {
  to: string;
  data: string;
  /** Native value in wei, hex. */
  value: Hex;
}

export interface WalletCallBundle {
  version: '2.0.0';
  chainId: Hex;
  from: string;
  /**
   * False: a wallet may send the calls one after the other (they are ordered, each valid after the one
   * before); one that can batch them atomically may.
   */
  atomicRequired: false;
  calls: WalletCall[];
}

export function walletCalls(
  chainId: number,
  from: string,
  transactions: readonly { to: string; data: string; value: string }[],
): WalletCallBundle {
  return {
    version: '2.0.0',
    chainId: numberToHex(chainId),
    from,
    atomicRequired: false,
    calls: transactions.map((tx) => ({ to: tx.to, data: tx.data, value: numberToHex(BigInt(tx.value)) })),
  };
}
