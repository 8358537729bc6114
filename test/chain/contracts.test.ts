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
  parseEventLogs,
  type TransactionReceipt,
} from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aquaAbi, erc20Abi, routerAbi } from '../../chain/abi.js';
import { approveCalldata, dockCalldata, shipCalldata, swapCalldata } from '../../chain/calldata.js';
import { quoteExactIn } from '../../chain/math.js';
import { AQUA_TRAITS, encodeStrategy, type Order, strategyHashOf } from '../../chain/order.js';
import {
  aquaProtocolFeeAmountIn,
  buildProgram,
  deadline,
  flatFeeAmountIn,
  PROTOCOL_FEE_1E9,
  salt,
  xycSwap,
} from '../../chain/program.js';
import { encodeTakerTraits, exactInTakerTraits, TAKER_FLAGS } from '../../chain/takerTraits.js';
import { type Anvil, startAnvil } from '../../devnet/anvil.js';
import { artifacts } from '../../devnet/artifacts.js';
import { testPort } from '../helpers/ports.js';

const PORT = testPort(18645);
const CHAIN_ID = 8453;
const MNEMONIC = 'test test test test test test test test test test test junk'; // anvil's devnet accounts
const FLAT_FEE = 3_000_000;
const UNIT = 1_000_000n; // 6 decimals

const [deployer, maker, taker, receiver] = [0, 1, 2, 3].map((addressIndex) =>
  mnemonicToAccount(MNEMONIC, { addressIndex }),
) as [
  ReturnType<typeof mnemonicToAccount>,
  ReturnType<typeof mnemonicToAccount>,
  ReturnType<typeof mnemonicToAccount>,
  ReturnType<typeof mnemonicToAccount>,
];
const R = receiver.address;

let anvil: Anvil;
const chain = defineChain({
  id: CHAIN_ID,
  name: 'devnet',
  nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
  rpcUrls: { default: { http: [`http://127.0.0.1:${PORT}`] } },
});
const transport = http(`http://127.0.0.1:${PORT}`);
const publicClient = createPublicClient({ chain, transport, pollingInterval: 50 });
const walletOf = (account: typeof deployer) =>
  createWalletClient({ account, chain, transport, pollingInterval: 50 });

const addr = {} as { tokenA: Address; tokenB: Address; aqua: Address; router: Address; multicall: Address };

async function send(account: typeof deployer, to: Address, data: Hex): Promise<TransactionReceipt> {
  const hash = await walletOf(account).sendTransaction({ to, data });
  const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  expect(receipt.status).toBe('success');
  return receipt;
}

async function deploy(name: keyof typeof artifacts, args: readonly unknown[] = []): Promise<Address> {
  const { abi, bytecode } = artifacts[name];
  const hash = await walletOf(deployer).deployContract({ abi, bytecode, args });
  const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  if (!receipt.contractAddress) throw new Error(`${name} not deployed`);
  return getAddress(receipt.contractAddress);
}

/** The custom error name a call reverts with. */
async function revertOf(call: Promise<unknown>): Promise<string> {
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
}

function simulate(
  account: typeof deployer,
  address: Address,
  abi: Abi,
  functionName: string,
  args: unknown[],
) {
  return publicClient.simulateContract({ account, address, abi, functionName, args });
}

async function rawBalance(strategyHash: Hex, token: Address) {
  return publicClient.readContract({
    address: addr.aqua,
    abi: aquaAbi,
    functionName: 'rawBalances',
    args: [maker.address, addr.router, strategyHash, token],
  });
}

async function ship(order: Order, amounts: [bigint, bigint]) {
  const strategy = encodeStrategy(order);
  const data = shipCalldata({ app: addr.router, strategy, tokens: [addr.tokenA, addr.tokenB], amounts });
  return { strategy, receipt: await send(maker, addr.aqua, data) };
}

function orderWith(instructions: Hex[]): Order {
  return { maker: maker.address, traits: AQUA_TRAITS, data: buildProgram(instructions) };
}

beforeAll(async () => {
  anvil = await startAnvil({ port: PORT, chainId: CHAIN_ID });
  addr.tokenA = await deploy('TestToken', ['Token A', 'TKA', false]);
  addr.tokenB = await deploy('TestToken', ['Token B', 'TKB', true]);
  addr.aqua = await deploy('Aqua');
  addr.router = await deploy('AquaSwapVMRouter', [addr.aqua]);
  addr.multicall = await deploy('Multicall3');
  for (const token of [addr.tokenA, addr.tokenB]) {
    for (const account of [maker, taker]) {
      await walletOf(account).writeContract({
        address: token,
        abi: erc20Abi,
        functionName: 'mint',
        args: [account.address, 1_000_000n * UNIT],
      });
    }
    await send(maker, token, approveCalldata(addr.aqua, maxUint256));
    await send(taker, token, approveCalldata(addr.router, maxUint256));
  }
});

afterAll(async () => {
  await anvil?.stop();
});

describe('devnet contracts against PROTOCOL.md', () => {
  const order = orderWith([
    aquaProtocolFeeAmountIn(PROTOCOL_FEE_1E9, R),
    flatFeeAmountIn(FLAT_FEE),
    xycSwap(),
    salt(1n),
  ]);
  const shipped = { bi: 10_000n * UNIT, bo: 20_000n * UNIT };
  let strategy: Hex;
  let strategyHash: Hex;

  it('ships a strategy: Shipped then Pushed per token, hash = keccak(strategy) = router.hash(order)', async () => {
    const predicted = await simulate(maker, addr.aqua, artifacts.Aqua.abi, 'ship', [
      addr.router,
      encodeStrategy(order),
      [addr.tokenA, addr.tokenB],
      [shipped.bi, shipped.bo],
    ]);
    const result = await ship(order, [shipped.bi, shipped.bo]);
    strategy = result.strategy;
    strategyHash = strategyHashOf(strategy);
    expect(predicted.result).toBe(strategyHash);

    const logs = parseEventLogs({ abi: aquaAbi, logs: result.receipt.logs });
    expect(logs.map((l) => l.eventName)).toEqual(['Shipped', 'Pushed', 'Pushed']);
    for (const log of logs) {
      expect(log.address).toBe(addr.aqua.toLowerCase());
      expect(log.topics).toHaveLength(1); // nothing indexed
    }
    expect(logs[0]?.args).toEqual({ maker: maker.address, app: addr.router, strategyHash, strategy });
    expect(logs[1]?.args).toMatchObject({ token: addr.tokenA, amount: shipped.bi, strategyHash });
    expect(logs[2]?.args).toMatchObject({ token: addr.tokenB, amount: shipped.bo, strategyHash });

    const routerHash = await publicClient.readContract({
      address: addr.router,
      abi: routerAbi,
      functionName: 'hash',
      args: [order],
    });
    expect(routerHash).toBe(strategyHash);
    expect(await rawBalance(strategyHash, addr.tokenA)).toEqual([shipped.bi, 2]);
  });

  it('quotes and swaps exactIn in both directions like quoteExactIn, with PROTOCOL.md event order', async () => {
    const directions = [
      { tokenIn: addr.tokenA, tokenOut: addr.tokenB, amount: 1_000n * UNIT },
      { tokenIn: addr.tokenB, tokenOut: addr.tokenA, amount: 777n * UNIT + 123n },
    ];
    for (const { tokenIn, tokenOut, amount } of directions) {
      const [bi] = await rawBalance(strategyHash, tokenIn);
      const [bo] = await rawBalance(strategyHash, tokenOut);
      const expected = quoteExactIn({
        amountIn: amount,
        balanceIn: bi,
        balanceOut: bo,
        protocolFee1e9: PROTOCOL_FEE_1E9,
        flatFee1e9: FLAT_FEE,
      });
      const swapArgs = { order, tokenIn, tokenOut, amount, takerTraits: exactInTakerTraits() };
      const quoted = await publicClient.readContract({
        address: addr.router,
        abi: routerAbi,
        functionName: 'quote',
        args: [order, tokenIn, tokenOut, amount, exactInTakerTraits()],
      });
      expect(quoted).toEqual([amount, expected.amountOut, strategyHash]);
      const simulated = await simulate(taker, addr.router, routerAbi, 'swap', [
        order,
        tokenIn,
        tokenOut,
        amount,
        exactInTakerTraits(),
      ]);
      expect(simulated.result).toEqual(quoted);

      const feeBefore = await publicClient.readContract({
        address: tokenIn,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [R],
      });
      const outBefore = await publicClient.readContract({
        address: tokenOut,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [taker.address],
      });
      const receipt = await send(taker, addr.router, swapCalldata(swapArgs));

      const events = parseEventLogs({ abi: [...aquaAbi, ...routerAbi], logs: receipt.logs });
      expect(events.map((e) => `${e.eventName}@${e.address}`)).toEqual([
        `Pulled@${addr.aqua.toLowerCase()}`,
        `Pulled@${addr.aqua.toLowerCase()}`,
        `Pushed@${addr.aqua.toLowerCase()}`,
        `Swapped@${addr.router.toLowerCase()}`,
      ]);
      const [fee, out, pushed, swapped] = events;
      const common = { maker: maker.address, app: addr.router, strategyHash };
      expect(fee?.args).toEqual({ ...common, token: tokenIn, amount: expected.protocolFee });
      expect(out?.args).toEqual({ ...common, token: tokenOut, amount: expected.amountOut });
      expect(pushed?.args).toEqual({ ...common, token: tokenIn, amount });
      expect(swapped?.args).toEqual({
        orderHash: strategyHash,
        maker: maker.address,
        taker: taker.address,
        tokenIn,
        tokenOut,
        amountIn: amount,
        amountOut: expected.amountOut,
      });

      const balances = await publicClient.multicall({
        multicallAddress: addr.multicall,
        allowFailure: false,
        contracts: [
          { address: tokenIn, abi: erc20Abi, functionName: 'balanceOf', args: [R] },
          { address: tokenOut, abi: erc20Abi, functionName: 'balanceOf', args: [taker.address] },
          {
            address: addr.aqua,
            abi: aquaAbi,
            functionName: 'rawBalances',
            args: [maker.address, addr.router, strategyHash, tokenIn],
          },
          {
            address: addr.aqua,
            abi: aquaAbi,
            functionName: 'rawBalances',
            args: [maker.address, addr.router, strategyHash, tokenOut],
          },
        ],
      });
      expect(balances[0] - feeBefore).toBe(expected.protocolFee);
      expect(balances[1] - outBefore).toBe(expected.amountOut);
      expect(balances[2]).toEqual([bi - expected.protocolFee + amount, 2]);
      expect(balances[3]).toEqual([bo - expected.amountOut, 2]);
    }
  });

  it('pulls a zero protocol fee under 2,000 base units, and honours a min-out threshold', async () => {
    const receipt = await send(
      taker,
      addr.router,
      swapCalldata({
        order,
        tokenIn: addr.tokenA,
        tokenOut: addr.tokenB,
        amount: 1999n,
        takerTraits: exactInTakerTraits(),
      }),
    );
    const events = parseEventLogs({ abi: aquaAbi, logs: receipt.logs });
    expect(events[0]?.eventName).toBe('Pulled');
    expect(events[0]?.args).toMatchObject({ token: addr.tokenA, amount: 0n });

    const tooMuch = `0x${(10n ** 30n).toString(16).padStart(64, '0')}` as Hex;
    const strict = encodeTakerTraits({
      flags: TAKER_FLAGS.exactIn | TAKER_FLAGS.useTransferFromAndAquaPush,
      slices: { threshold: tooMuch },
    });
    expect(
      await revertOf(
        simulate(taker, addr.router, artifacts.AquaSwapVMRouter.abi, 'swap', [
          order,
          addr.tokenA,
          addr.tokenB,
          10n * UNIT,
          strict,
        ]),
      ),
    ).toBe('TakerTraitsInsufficientMinOutputAmount');
  });

  it('rejects re-shipping, duplicate tokens and a partial dock; dock closes with tokensCount 0xFF', async () => {
    const shipArgs = (s: Hex, tokens: Address[]) => [addr.router, s, tokens, tokens.map(() => UNIT)];
    const other = encodeStrategy(orderWith([xycSwap(), salt(99n)]));
    expect(
      await revertOf(
        simulate(maker, addr.aqua, artifacts.Aqua.abi, 'ship', shipArgs(other, [addr.tokenA, addr.tokenA])),
      ),
    ).toBe('StrategiesMustBeImmutable');
    expect(
      await revertOf(
        simulate(
          maker,
          addr.aqua,
          artifacts.Aqua.abi,
          'ship',
          shipArgs(strategy, [addr.tokenA, addr.tokenB]),
        ),
      ),
    ).toBe('StrategiesMustBeImmutable');
    expect(
      await revertOf(
        simulate(maker, addr.aqua, artifacts.Aqua.abi, 'dock', [addr.router, strategyHash, [addr.tokenA]]),
      ),
    ).toBe('DockingShouldCloseAllTokens');

    const receipt = await send(
      maker,
      addr.aqua,
      dockCalldata({ app: addr.router, strategyHash, tokens: [addr.tokenA, addr.tokenB] }),
    );
    const logs = parseEventLogs({ abi: aquaAbi, logs: receipt.logs });
    expect(logs.map((l) => [l.eventName, l.args])).toEqual([
      ['Docked', { maker: maker.address, app: addr.router, strategyHash }],
    ]);
    expect(await rawBalance(strategyHash, addr.tokenA)).toEqual([0n, 0xff]);
    expect(await rawBalance(strategyHash, addr.tokenB)).toEqual([0n, 0xff]);

    // A docked strategy can never be shipped again with the same bytes and tokens.
    expect(
      await revertOf(
        simulate(
          maker,
          addr.aqua,
          artifacts.Aqua.abi,
          'ship',
          shipArgs(strategy, [addr.tokenA, addr.tokenB]),
        ),
      ),
    ).toBe('StrategiesMustBeImmutable');
    expect(
      await revertOf(
        simulate(taker, addr.router, [...artifacts.AquaSwapVMRouter.abi, ...artifacts.Aqua.abi], 'quote', [
          order,
          addr.tokenA,
          addr.tokenB,
          UNIT,
          exactInTakerTraits(),
        ]),
      ),
    ).toBe('SafeBalancesForTokenNotInActiveStrategy');
  });

  it('reverts quote on an unknown opcode and swap past a Deadline; quotes exactOut', async () => {
    // ProtocolFeeAmountIn (27) belongs to the reference table but pays from the taker, outside Aqua.
    const unsupported = '0x1b00' as Hex;
    const unknown = orderWith([unsupported, salt(2n)]);
    await ship(unknown, [UNIT, UNIT]);
    const quoteArgs = (o: Order) => [o, addr.tokenA, addr.tokenB, UNIT, exactInTakerTraits()];
    expect(
      await revertOf(
        simulate(taker, addr.router, artifacts.AquaSwapVMRouter.abi, 'quote', quoteArgs(unknown)),
      ),
    ).toBe('UnknownOpcode');

    const block = await publicClient.getBlock();
    const expired = orderWith([deadline(block.timestamp - 60n), xycSwap(), salt(3n)]);
    const live = orderWith([deadline(block.timestamp + 3600n), xycSwap(), salt(3n)]);
    await ship(expired, [UNIT, UNIT]);
    await ship(live, [UNIT, UNIT]);
    expect(
      await revertOf(
        simulate(taker, addr.router, artifacts.AquaSwapVMRouter.abi, 'swap', quoteArgs(expired)),
      ),
    ).toBe('DeadlineReached');
    const ok = await simulate(taker, addr.router, artifacts.AquaSwapVMRouter.abi, 'swap', quoteArgs(live));
    expect((ok.result as readonly bigint[])[1]).toBe(UNIT / 2n); // 1·1/(1+1) with no fees

    // exactOut (no exactIn flag): the amount is the output wanted; in = ⌈o·bi/(bo − o)⌉.
    const exactOut = encodeTakerTraits({ flags: TAKER_FLAGS.useTransferFromAndAquaPush });
    const wanted = UNIT / 4n;
    const out = await simulate(taker, addr.router, artifacts.AquaSwapVMRouter.abi, 'quote', [
      live,
      addr.tokenA,
      addr.tokenB,
      wanted,
      exactOut,
    ]);
    expect((out.result as readonly bigint[]).slice(0, 2)).toEqual([
      (wanted * UNIT - 1n) / (UNIT - wanted) + 1n,
      wanted,
    ]);
  });

  it('serves viem multicall through the devnet Multicall3', async () => {
    const [blockNumber, chainId] = await publicClient.multicall({
      multicallAddress: addr.multicall,
      allowFailure: false,
      contracts: [
        { address: addr.multicall, abi: artifacts.Multicall3.abi, functionName: 'getBlockNumber' },
        { address: addr.multicall, abi: artifacts.Multicall3.abi, functionName: 'getChainId' },
      ],
    });
    expect(blockNumber).toBe(await publicClient.getBlockNumber({ cacheTime: 0 }));
    expect(chainId).toBe(BigInt(CHAIN_ID));
  });

  it("keeps USDT's approval rule on a zeroFirstApprovals token: a set allowance goes to zero before any other value", async () => {
    const spender = taker.address;
    const approve = (token: Address, amount: bigint) =>
      simulate(maker, token, artifacts.TestToken.abi, 'approve', [spender, amount]);
    await send(maker, addr.tokenB, approveCalldata(spender, 5n));
    expect(await revertOf(approve(addr.tokenB, 10n))).toBe('ApprovalNotFromZero');
    await send(maker, addr.tokenB, approveCalldata(spender, 0n));
    await send(maker, addr.tokenB, approveCalldata(spender, 10n));
    // A plain token changes a set allowance directly.
    await send(maker, addr.tokenA, approveCalldata(spender, 5n));
    await send(maker, addr.tokenA, approveCalldata(spender, 10n));
  });
});
