/**
 * A maker of the test's own on a devnet chain: anvil's tenth account, which holds none of the devnet's
 * roles. The activity bot docks its own makers' strategies at random; another wallet's it only swaps,
 * so strategies this maker ships stay active for as long as the test needs them.
 */
import { type Address, encodeFunctionData, getAddress, maxUint256 } from 'viem';
import { expect } from 'vitest';
import { erc20Abi } from '../../chain/abi.js';
import { approveCalldata } from '../../chain/calldata.js';
import { rolesOf } from '../../devnet/chains.js';
import { type DevnetRpc, sendAndWait } from '../../devnet/wallet.js';

/** Mints `amount` of each token to the test's maker and approves Aqua for them; returns the maker. */
export async function fundOwnMaker(
  rpc: DevnetRpc,
  options: { aqua: Address; tokens: readonly Address[]; amount: bigint },
): Promise<Address> {
  const accounts = (await rpc.request({ method: 'eth_accounts' })) as Address[];
  const maker = getAddress(accounts[9]!);
  const { deployer, makers, taker, feeReceiver, pilot } = rolesOf(accounts);
  expect([deployer, ...makers, taker, feeReceiver, pilot.maker, pilot.taker, pilot.feeWallet]).not.toContain(
    maker,
  );
  for (const token of options.tokens) {
    const mint = encodeFunctionData({ abi: erc20Abi, functionName: 'mint', args: [maker, options.amount] });
    await sendAndWait(rpc, maker, token, mint);
    await sendAndWait(rpc, maker, token, approveCalldata(options.aqua, maxUint256));
  }
  return maker;
}
