/**
 * The devnet contracts revert with the reference encodings of PROTOCOL.md's table, byte for byte
 * (raw eth_call revert data on a real anvil), and honour the reference's other ship/dock facts. The
 * expected bytes are written out by hand: selector literal + 32-byte words.
 */
import {
  type Address,
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeFunctionData,
  getAddress,
  type Hex,
  http,
  maxUint256,
  parseEventLogs,
  toFunctionSelector,
} from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aquaAbi, erc20Abi } from '../../chain/abi.js';
import {
  approveCalldata,
  dockCalldata,
  quoteCalldata,
  shipCalldata,
  swapCalldata,
} from '../../chain/calldata.js';
import { quoteExactIn } from '../../chain/math.js';
import { AQUA_TRAITS, encodeStrategy, type Order, strategyHashOf } from '../../chain/order.js';
import {
  aquaProtocolFeeAmountIn,
  buildProgram,
  PROTOCOL_FEE_1E9,
  salt,
  xycSwap,
} from '../../chain/program.js';
import { decodeRevert } from '../../chain/revert.js';
import { encodeTakerTraits, exactInTakerTraits, TAKER_FLAGS } from '../../chain/takerTraits.js';
import { type Anvil, startAnvil } from '../../devnet/anvil.js';
import { artifacts } from '../../devnet/artifacts.js';
import { testPort } from '../helpers/ports.js';

const PORT = testPort(18655);
const RPC = `http://127.0.0.1:${PORT}`;
const MNEMONIC = 'test test test test test test test test test test test junk'; // anvil's devnet accounts
const UNIT = 1_000_000n;
type Account = ReturnType<typeof mnemonicToAccount>;
const [deployer, maker, taker, receiver, unapproved] = [0, 1, 2, 3, 4].map((addressIndex) =>
  mnemonicToAccount(MNEMONIC, { addressIndex }),
) as [Account, Account, Account, Account, Account];

const chain = defineChain({
  id: 31337,
  name: 'anvil',
  nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
  rpcUrls: { default: { http: [RPC] } },
});
const publicClient = createPublicClient({ chain, transport: http(RPC), pollingInterval: 50 });
const walletOf = (account: Account) =>
  createWalletClient({ account, chain, transport: http(RPC), pollingInterval: 50 });

let anvil: Anvil;
const addr = {} as { tokenA: Address; tokenB: Address; aqua: Address; router: Address };

const word = (value: bigint | string) =>
  (typeof value === 'bigint' ? value.toString(16) : value.slice(2).toLowerCase()).padStart(64, '0');
const expected = (selector: string, ...words: (bigint | string)[]) =>
  `${selector}${words.map(word).join('')}` as Hex;

/** The raw revert data of an eth_call, as the node returns it. */
async function revertData(from: Address, to: Address, data: Hex): Promise<Hex> {
  const res = await fetch(RPC, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'eth_call',
      params: [{ from, to, data }, 'latest'],
    }),
  });
  const body = (await res.json()) as { result?: Hex; error?: { data?: Hex } };
  if (body.result !== undefined) throw new Error(`expected a revert, got ${body.result}`);
  return (body.error?.data ?? '0x').toLowerCase() as Hex;
}

async function send(account: Account, to: Address, data: Hex) {
  const hash = await walletOf(account).sendTransaction({ to, data });
  const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  expect(receipt.status).toBe('success');
  return receipt;
}

async function deploy(name: keyof typeof artifacts, args: readonly unknown[] = []): Promise<Address> {
  const { abi, bytecode } = artifacts[name];
  const hash = await walletOf(deployer).deployContract({ abi, bytecode, args });
  const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  return getAddress(receipt.contractAddress!);
}

let saltCounter = 0n;
function newOrder(of: Account = maker): Order {
  const data = buildProgram([
    aquaProtocolFeeAmountIn(PROTOCOL_FEE_1E9, receiver.address),
    xycSwap(),
    salt(++saltCounter),
  ]);
  return { maker: of.address, traits: AQUA_TRAITS, data };
}

async function ship(order: Order, amounts: [bigint, bigint], from: Account = maker) {
  const strategy = encodeStrategy(order);
  await send(
    from,
    addr.aqua,
    shipCalldata({ app: addr.router, strategy, tokens: [addr.tokenA, addr.tokenB], amounts }),
  );
  return strategyHashOf(strategy);
}

/** Taker data of PROTOCOL.md "Taker data with a minimum output and a deadline". */
function minOutAndDeadline(minOut: bigint, deadline: bigint, strict = false): Hex {
  return encodeTakerTraits({
    flags: TAKER_FLAGS.exactIn | TAKER_FLAGS.useTransferFromAndAquaPush | (strict ? 0x10 : 0),
    slices: {
      threshold: `0x${minOut.toString(16).padStart(64, '0')}`,
      deadline: `0x${deadline.toString(16).padStart(10, '0')}`,
    },
  });
}

beforeAll(async () => {
  anvil = await startAnvil({ port: PORT, chainId: 31337 });
  addr.tokenA = await deploy('TestToken', ['Token A', 'TKA', false]);
  addr.tokenB = await deploy('TestToken', ['Token B', 'TKB', true]);
  addr.aqua = await deploy('Aqua');
  addr.router = await deploy('AquaSwapVMRouter', [addr.aqua]);
  for (const token of [addr.tokenA, addr.tokenB]) {
    for (const account of [maker, taker, unapproved]) {
      await send(
        account,
        token,
        encodeFunctionData({
          abi: erc20Abi,
          functionName: 'mint',
          args: [account.address, 1_000_000n * UNIT],
        }),
      );
    }
    await send(maker, token, approveCalldata(addr.aqua, maxUint256));
    await send(taker, token, approveCalldata(addr.router, maxUint256));
  }
});

afterAll(async () => {
  await anvil?.stop();
});

describe('reference revert encodings (PROTOCOL.md), byte for byte', () => {
  it('output rounds to 0, on quote and swap: 0xf6ab88ca + amountOut (36 bytes)', async () => {
    const order = newOrder();
    await ship(order, [10_000n * UNIT, 20_000n * UNIT]);
    // B → A with 1 base unit: 1·10000/(20000+1) rounds to 0.
    const params = {
      order,
      tokenIn: addr.tokenB,
      tokenOut: addr.tokenA,
      amount: 1n,
      takerTraits: exactInTakerTraits(),
    };
    for (const data of [quoteCalldata(params), swapCalldata(params)]) {
      const raw = await revertData(taker.address, addr.router, data);
      expect(raw).toBe(expected('0xf6ab88ca', 0n));
      expect(raw).toHaveLength(2 + 72);
      expect(decodeRevert(raw).name).toBe('TakerTraitsAmountOutMustBeGreaterThanZero');
    }
  });

  it("protocol fee above the strategy's tokenIn balance: Panic(0x11) on swap, while quote succeeds", async () => {
    const order = newOrder();
    await ship(order, [1n, 10_000n * UNIT]);
    const params = {
      order,
      tokenIn: addr.tokenA,
      tokenOut: addr.tokenB,
      amount: 1_000n * UNIT,
      takerTraits: exactInTakerTraits(),
    };
    const quoted = await publicClient.call({
      account: taker.address,
      to: addr.router,
      data: quoteCalldata(params),
    });
    expect(quoted.data).toBeDefined();
    const raw = await revertData(taker.address, addr.router, swapCalldata(params));
    expect(raw).toBe(expected('0x4e487b71', 0x11n));
    expect(decodeRevert(raw).hint).toMatch(/protocol fee/);
  });

  it("ship never checks the allowance; a swap then fails the maker's pull: SafeTransferFromFailed() 0xf4059071", async () => {
    const order = newOrder(unapproved);
    const strategyHash = await ship(order, [10_000n * UNIT, 10_000n * UNIT], unapproved);
    const [, tokensCount] = await publicClient.readContract({
      address: addr.aqua,
      abi: aquaAbi,
      functionName: 'rawBalances',
      args: [unapproved.address, addr.router, strategyHash, addr.tokenA],
    });
    expect(tokensCount).toBe(2);
    for (const amount of [1_000n, 100n * UNIT]) {
      // Under 2,000 base units the fee pull is 0 and passes; the tokenOut pull fails. Above, the fee pull fails.
      const params = {
        order,
        tokenIn: addr.tokenA,
        tokenOut: addr.tokenB,
        amount,
        takerTraits: exactInTakerTraits(),
      };
      expect(await revertData(taker.address, addr.router, swapCalldata(params))).toBe('0xf4059071');
    }
  });

  it('quote on a strategy never shipped or docked: SafeBalancesForTokenNotInActiveStrategy 0xb63386a6', async () => {
    const order = newOrder();
    const strategyHash = strategyHashOf(encodeStrategy(order));
    const params = {
      order,
      tokenIn: addr.tokenA,
      tokenOut: addr.tokenB,
      amount: UNIT,
      takerTraits: exactInTakerTraits(),
    };
    const want = expected('0xb63386a6', maker.address, addr.router, strategyHash, addr.tokenA);
    expect(await revertData(taker.address, addr.router, quoteCalldata(params))).toBe(want);

    await ship(order, [UNIT, UNIT]);
    await send(
      maker,
      addr.aqua,
      dockCalldata({ app: addr.router, strategyHash, tokens: [addr.tokenA, addr.tokenB] }),
    );
    expect(await revertData(taker.address, addr.router, quoteCalldata(params))).toBe(want);
    expect(await revertData(taker.address, addr.router, swapCalldata(params))).toBe(want);
  });

  it('re-ship of an active or docked hash, or a duplicate token: StrategiesMustBeImmutable(app, hash)', async () => {
    const selector = toFunctionSelector('StrategiesMustBeImmutable(address,bytes32)');
    const order = newOrder();
    const strategy = encodeStrategy(order);
    const strategyHash = strategyHashOf(strategy);
    const shipData = (tokens: Address[]) =>
      shipCalldata({ app: addr.router, strategy, tokens, amounts: tokens.map(() => UNIT) });
    const want = expected(selector, addr.router, strategyHash);
    expect(await revertData(maker.address, addr.aqua, shipData([addr.tokenA, addr.tokenA]))).toBe(want);
    await send(maker, addr.aqua, shipData([addr.tokenA, addr.tokenB]));
    expect(await revertData(maker.address, addr.aqua, shipData([addr.tokenA, addr.tokenB]))).toBe(want);
    await send(
      maker,
      addr.aqua,
      dockCalldata({ app: addr.router, strategyHash, tokens: [addr.tokenA, addr.tokenB] }),
    );
    expect(await revertData(maker.address, addr.aqua, shipData([addr.tokenA, addr.tokenB]))).toBe(want);
  });

  it('dock with a token list that is not the shipped one: DockingShouldCloseAllTokens(app, hash)', async () => {
    const selector = toFunctionSelector('DockingShouldCloseAllTokens(address,bytes32)');
    const order = newOrder();
    const strategyHash = await ship(order, [UNIT, UNIT]);
    const want = expected(selector, addr.router, strategyHash);
    for (const tokens of [[addr.tokenA], [addr.tokenA, addr.tokenA], [addr.tokenA, addr.tokenB, addr.aqua]]) {
      expect(
        await revertData(maker.address, addr.aqua, dockCalldata({ app: addr.router, strategyHash, tokens })),
      ).toBe(want);
    }
    // Tokens exactly as shipped close it.
    const receipt = await send(
      maker,
      addr.aqua,
      dockCalldata({ app: addr.router, strategyHash, tokens: [addr.tokenA, addr.tokenB] }),
    );
    expect(parseEventLogs({ abi: aquaAbi, logs: receipt.logs }).map((l) => l.eventName)).toEqual(['Docked']);
  });

  it('taker data with a minimum output and a deadline: min met swaps, min missed 0xf44f8993, deadline passed 0x6dbb538d', async () => {
    const order = newOrder();
    const strategyHash = await ship(order, [10_000n * UNIT, 20_000n * UNIT]);
    const amount = 100n * UNIT;
    const { amountOut } = quoteExactIn({
      amountIn: amount,
      balanceIn: 10_000n * UNIT,
      balanceOut: 20_000n * UNIT,
      protocolFee1e9: PROTOCOL_FEE_1E9,
      flatFee1e9: 0,
    });
    const { timestamp } = await publicClient.getBlock();
    const future = timestamp + 3600n;
    const takerData = minOutAndDeadline(amountOut, future);
    // PROTOCOL.md's layout: offsets [32, 32, 37 ×8], flags 0x0041, then m (32 bytes) and d (5 bytes).
    const offsets = [32, 32, 37, 37, 37, 37, 37, 37, 37, 37].reduce(
      (acc, end, k) => acc | (BigInt(end) << BigInt(16 * k)),
      0n,
    );
    expect(takerData).toBe(
      `0x${offsets.toString(16).padStart(40, '0')}0041${word(amountOut)}${future.toString(16).padStart(10, '0')}`,
    );
    const params = (takerTraits: Hex) => ({
      order,
      tokenIn: addr.tokenA,
      tokenOut: addr.tokenB,
      amount,
      takerTraits,
    });

    expect(
      await revertData(
        taker.address,
        addr.router,
        swapCalldata(params(minOutAndDeadline(amountOut + 1n, future))),
      ),
    ).toBe(expected('0xf44f8993', amountOut, amountOut + 1n));
    expect(
      await revertData(
        taker.address,
        addr.router,
        quoteCalldata(params(minOutAndDeadline(amountOut + 1n, future))),
      ),
    ).toBe(expected('0xf44f8993', amountOut, amountOut + 1n));
    // The deadline is checked before the threshold, as on the reference.
    expect(
      await revertData(
        taker.address,
        addr.router,
        swapCalldata(params(minOutAndDeadline(amountOut + 1n, timestamp - 1n))),
      ),
    ).toBe('0x6dbb538d');
    // The strict-threshold flag wants the output exactly.
    expect(
      await revertData(
        taker.address,
        addr.router,
        swapCalldata(params(minOutAndDeadline(amountOut - 1n, future, true))),
      ),
    ).toBe(
      expected(
        toFunctionSelector('TakerTraitsNonExactThresholdAmountOut(uint256,uint256)'),
        amountOut,
        amountOut - 1n,
      ),
    );

    const receipt = await send(taker, addr.router, swapCalldata(params(takerData)));
    const swapped = parseEventLogs({
      abi: artifacts.AquaSwapVMRouter.abi,
      logs: receipt.logs,
      eventName: 'Swapped',
    });
    expect(swapped[0]?.args).toMatchObject({ orderHash: strategyHash, amountIn: amount, amountOut });
  });
});

describe('reference ship facts', () => {
  it('an empty token list ships (Shipped only), more amounts than tokens ship (the extra ignored)', async () => {
    const empty = encodeStrategy(newOrder());
    const emptyShip = encodeFunctionData({
      abi: aquaAbi,
      functionName: 'ship',
      args: [addr.router, empty, [], []],
    });
    const receipt = await send(maker, addr.aqua, emptyShip);
    expect(parseEventLogs({ abi: aquaAbi, logs: receipt.logs }).map((l) => l.eventName)).toEqual(['Shipped']);

    const extra = encodeStrategy(newOrder());
    const extraShip = encodeFunctionData({
      abi: aquaAbi,
      functionName: 'ship',
      args: [addr.router, extra, [addr.tokenA, addr.tokenB], [UNIT, 2n * UNIT, 3n * UNIT]],
    });
    const logs = parseEventLogs({ abi: aquaAbi, logs: (await send(maker, addr.aqua, extraShip)).logs });
    expect(logs.map((l) => [l.eventName, 'amount' in l.args ? l.args.amount : null])).toEqual([
      ['Shipped', null],
      ['Pushed', UNIT],
      ['Pushed', 2n * UNIT],
    ]);
  });
});
