/**
 * A bare anvil with our Aqua, router and two 6-decimal test tokens deployed, a maker approved to Aqua
 * and a taker approved to the router, both funded: for tests that run programs on the router itself.
 */
import {
  type Abi,
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createWalletClient,
  defineChain,
  getAddress,
  type Hex,
  http,
  maxUint256,
  type TransactionReceipt,
} from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { aquaAbi, erc20Abi } from '../../chain/abi.js';
import { approveCalldata, shipCalldata } from '../../chain/calldata.js';
import { AQUA_TRAITS, encodeStrategy, type Order, strategyHashOf } from '../../chain/order.js';
import { buildProgram } from '../../chain/program.js';
import { startAnvil } from '../../devnet/anvil.js';
import { artifacts } from '../../devnet/artifacts.js';

const MNEMONIC = 'test test test test test test test test test test test junk'; // anvil's devnet accounts

export type Account = ReturnType<typeof mnemonicToAccount>;

export async function startRouterChain(options: { port: number; chainId?: number; mint?: bigint }) {
  const chainId = options.chainId ?? 31337;
  const rpc = `http://127.0.0.1:${options.port}`;
  const anvil = await startAnvil({ port: options.port, chainId });
  const [deployer, maker, taker, receiver] = [0, 1, 2, 3].map((addressIndex) =>
    mnemonicToAccount(MNEMONIC, { addressIndex }),
  ) as [Account, Account, Account, Account];
  const chain = defineChain({
    id: chainId,
    name: 'devnet',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpc] } },
  });
  const publicClient = createPublicClient({ chain, transport: http(rpc), pollingInterval: 50 });
  const walletOf = (account: Account) =>
    createWalletClient({ account, chain, transport: http(rpc), pollingInterval: 50 });

  async function send(account: Account, to: Address, data: Hex): Promise<TransactionReceipt> {
    const hash = await walletOf(account).sendTransaction({ to, data });
    return publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  }

  async function deploy(name: keyof typeof artifacts, args: readonly unknown[] = []): Promise<Address> {
    const { abi, bytecode } = artifacts[name];
    const hash = await walletOf(deployer).deployContract({ abi, bytecode, args });
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    if (!receipt.contractAddress) throw new Error(`${name} not deployed`);
    return getAddress(receipt.contractAddress);
  }

  const first = await deploy('TestToken', ['Token A', 'TKA', false]);
  const second = await deploy('TestToken', ['Token B', 'TKB', false]);
  // Lt/Gt: the token with the lower/higher address (the curves orient by it).
  const [lt, gt] = BigInt(first) < BigInt(second) ? [first, second] : [second, first];
  const aqua = await deploy('Aqua');
  const router = await deploy('AquaSwapVMRouter', [aqua]);
  const mint = options.mint ?? 10n ** 18n;
  for (const token of [lt, gt]) {
    for (const account of [maker, taker]) {
      await walletOf(account).writeContract({
        address: token,
        abi: erc20Abi,
        functionName: 'mint',
        args: [account.address, mint],
      });
    }
    await send(maker, token, approveCalldata(aqua, maxUint256));
    await send(taker, token, approveCalldata(router, maxUint256));
  }

  return {
    accounts: { deployer, maker, taker, receiver },
    addr: { lt, gt, aqua, router },
    publicClient,
    send,
    /** A maker's order over a program of instructions. */
    orderWith(instructions: readonly Hex[]): Order {
      return { maker: maker.address, traits: AQUA_TRAITS, data: buildProgram(instructions) };
    },
    /** Ships `order` with [lt, gt] amounts; returns its strategy hash. */
    async ship(order: Order, amounts: readonly [bigint, bigint]): Promise<Hex> {
      const strategy = encodeStrategy(order);
      const data = shipCalldata({ app: router, strategy, tokens: [lt, gt], amounts: [...amounts] });
      const receipt = await send(maker, aqua, data);
      if (receipt.status !== 'success') throw new Error('ship reverted');
      return strategyHashOf(strategy);
    },
    async balance(strategyHash: Hex, token: Address): Promise<bigint> {
      const [value] = await publicClient.readContract({
        address: aqua,
        abi: aquaAbi,
        functionName: 'rawBalances',
        args: [maker.address, router, strategyHash, token],
      });
      return value;
    },
    /** The router's answer to a call, or its revert data (raw, byte for byte). */
    async call(data: Hex, from: Address = taker.address): Promise<{ result?: Hex; revert?: Hex }> {
      const res = await fetch(rpc, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'eth_call',
          params: [{ from, to: router, data }, 'latest'],
        }),
      });
      const body = (await res.json()) as { result?: Hex; error?: { data?: Hex } };
      return body.error ? { revert: body.error.data ?? '0x' } : { result: body.result! };
    },
    /** The custom error name a simulated call reverts with. */
    async revertOf(call: Promise<unknown>): Promise<string> {
      try {
        await call;
      } catch (error) {
        const reverted =
          error instanceof BaseError ? error.walk((e) => e instanceof ContractFunctionRevertedError) : null;
        if (reverted instanceof ContractFunctionRevertedError)
          return reverted.data?.errorName ?? 'unknown revert';
        throw error;
      }
      throw new Error('expected a revert');
    },
    simulate(account: Account, functionName: string, args: unknown[]) {
      return publicClient.simulateContract({
        account,
        address: router,
        abi: artifacts.AquaSwapVMRouter.abi as Abi,
        functionName,
        args,
      });
    },
    /** Mines one block at `timestamp` (seconds). */
    async mineAt(timestamp: bigint): Promise<void> {
      await publicClient.request({
        method: 'evm_mine' as 'eth_chainId',
        params: [Number(timestamp)] as never,
      });
    },
    stop: () => anvil.stop(),
  };
}

export type RouterChain = Awaited<ReturnType<typeof startRouterChain>>;
