import {
  type Address,
  encodeDeployData,
  encodeFunctionData,
  getAddress,
  getContractAddress,
  type Hex,
  toHex,
} from 'viem';
import { erc20Abi } from '../chain/abi.js';
import { presetOf } from '../lib/chainPresets.js';
import { artifacts } from './artifacts.js';
import {
  DEVNET_FEED_SYMBOLS,
  DEVNET_USD_PRICES,
  type DevnetChainSpec,
  type DevnetRoles,
  PILOT_SYMBOLS,
} from './chains.js';
import { units } from './strategies.js';
import { type DevnetRpc, PipelinedWallet } from './wallet.js';

/**
 * The first round of a devnet chain's seed (devnet/seed.ts): the deployer deploys the test tokens,
 * Aqua, the router and Multicall3, the contracts move to their chain's production addresses
 * (chain/presets.ts), and the makers, the taker and the pilot wallets are minted their tokens.
 */

const TOKEN_NAMES: Record<string, string> = { USDC: 'USD Coin', USDT: 'Tether USD', EURC: 'Euro Coin' };
/** Tokens deployed with USDT's approval rule (an allowance that is not zero is only ever set to zero). */
const ZERO_FIRST_APPROVALS = new Set(['USDT']);

const MAKER_MINT = units(50_000_000);
const TAKER_MINT = units(50_000_000);
const PILOT_MINT = units(1_000_000);

/** A USD feed's answer has 8 decimals, as Chainlink's fiat feeds do. */
const FEED_DECIMALS = 8;
const feedAnswer = (usd: number): bigint => BigInt(Math.round(usd * 10 ** FEED_DECIMALS));

const GAS = {
  deploy: 3_000_000n,
  mint: 150_000n,
};

/** Where a chain's contracts are, once deployed and placed. */
export interface DeployedContracts {
  aqua: Address;
  router: Address;
  multicall: Address;
  /** By symbol. */
  tokens: Record<string, Address>;
  /** The USD price feeds of the tokens priced by one (DEVNET_FEED_SYMBOLS), by symbol. */
  priceFeeds: Record<string, Address>;
}

/**
 * Deploys the contracts of one chain and mints the tokens, nonces of the deployer in sequence; returns
 * the contracts' addresses and the count of transactions sent.
 */
export async function deployAndMint(
  rpc: DevnetRpc,
  spec: DevnetChainSpec,
  roles: DevnetRoles,
): Promise<{ contracts: DeployedContracts; transactions: number }> {
  let transactions = 0;
  // The deployer deploys everything and mints, nonces in sequence.
  const deployer = await PipelinedWallet.open(rpc, roles.deployer);
  const nextAddress = () => getContractAddress({ from: deployer.address, nonce: BigInt(deployer.nextNonce) });
  const tokens: Record<string, Address> = {};
  for (const symbol of spec.tokens) {
    tokens[symbol] = nextAddress();
    deployer.send({
      data: encodeDeployData({
        abi: artifacts.TestToken.abi,
        bytecode: artifacts.TestToken.bytecode,
        args: [TOKEN_NAMES[symbol] ?? symbol, symbol, ZERO_FIRST_APPROVALS.has(symbol)],
      }),
      gas: GAS.deploy,
    });
  }
  let aqua = nextAddress();
  deployer.send({ data: artifacts.Aqua.bytecode, gas: GAS.deploy });
  let router = nextAddress();
  // AQUA is an immutable of the router (in its runtime code): it names Aqua where Aqua will be.
  const presetAqua = presetOf(spec.key)?.aqua;
  deployer.send({
    data: encodeDeployData({
      abi: artifacts.AquaSwapVMRouter.abi,
      bytecode: artifacts.AquaSwapVMRouter.bytecode,
      args: [presetAqua === undefined ? aqua : getAddress(presetAqua)],
    }),
    gas: GAS.deploy,
  });
  let multicall = nextAddress();
  deployer.send({ data: artifacts.Multicall3.bytecode, gas: GAS.deploy });
  const priceFeeds: Record<string, Address> = {};
  for (const symbol of spec.tokens.filter((s) => DEVNET_FEED_SYMBOLS.has(s))) {
    priceFeeds[symbol] = nextAddress();
    deployer.send({
      data: encodeDeployData({
        abi: artifacts.TestPriceFeed.abi,
        bytecode: artifacts.TestPriceFeed.bytecode,
        args: [FEED_DECIMALS, `${symbol} / USD`, feedAnswer(DEVNET_USD_PRICES[symbol]!)],
      }),
      gas: GAS.deploy,
    });
  }
  transactions += (await deployer.settle()).length;

  // The contracts move to the deployed addresses of their chain (chain/presets.ts), so the devnet runs
  // on production's addresses; tokens the preset does not list stay where they were deployed.
  const preset = presetOf(spec.key);
  const moves: [Address, string | undefined][] = [
    [aqua, preset?.aqua],
    [router, preset?.router],
    [multicall, preset?.multicall],
    ...spec.tokens.map((symbol): [Address, string | undefined] => [
      tokens[symbol]!,
      preset?.tokens.find((t) => t.symbol === symbol)?.address,
    ]),
  ];
  const placed = new Map<Address, Address>();
  await Promise.all(
    moves.map(async ([from, to]) => {
      if (to === undefined) return;
      await placeContract(rpc, from, getAddress(to));
      placed.set(from, getAddress(to));
    }),
  );
  const at = (address: Address) => placed.get(address) ?? address;
  aqua = at(aqua);
  router = at(router);
  multicall = at(multicall);
  for (const symbol of spec.tokens) tokens[symbol] = at(tokens[symbol]!);

  const mints: [Address, string, bigint][] = [];
  for (const maker of roles.makers) for (const s of spec.tokens) mints.push([maker, s, MAKER_MINT]);
  for (const s of spec.tokens) mints.push([roles.taker, s, TAKER_MINT]);
  if (spec.pilot) {
    for (const s of PILOT_SYMBOLS) {
      mints.push([roles.pilot.maker, s, PILOT_MINT]);
      mints.push([roles.pilot.taker, s, PILOT_MINT]);
    }
  }
  for (const [to, symbol, amount] of mints) {
    deployer.send({
      to: tokens[symbol]!,
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'mint', args: [to, amount] }),
      gas: GAS.mint,
    });
  }
  const deployed = await deployer.settle();
  transactions += deployed.length;
  return { contracts: { aqua, router, multicall, tokens, priceFeeds }, transactions };
}

/**
 * Storage slots a placed contract takes along: TestToken's constructor writes name (0) and symbol (1),
 * short strings held in their slot; totalSupply (2) is still 0. Aqua, the router and Multicall3 write
 * no storage in their constructors (the router's AQUA is an immutable, in the runtime code).
 */
const CONSTRUCTOR_SLOTS = [0n, 1n, 2n];

/** Copies the runtime code and constructor-written storage of `from` to `to` (anvil_setCode/StorageAt). */
async function placeContract(rpc: DevnetRpc, from: Address, to: Address): Promise<void> {
  const request = (method: string, params: unknown[]) =>
    rpc.request({ method, params } as never) as Promise<unknown>;
  const code = (await request('eth_getCode', [from, 'latest'])) as Hex;
  if (code === '0x') throw new Error(`no contract at ${from} to place at ${to}`);
  await request('anvil_setCode', [to, code]);
  await Promise.all(
    CONSTRUCTOR_SLOTS.map(async (slot) => {
      const value = (await request('eth_getStorageAt', [from, toHex(slot), 'latest'])) as Hex;
      await request('anvil_setStorageAt', [to, toHex(slot, { size: 32 }), value]);
    }),
  );
}
