import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  type Address,
  BaseError,
  createPublicClient,
  createWalletClient,
  encodeFunctionData,
  getAddress,
  type Hex,
  http,
  isHex,
  parseEther,
  parseUnits,
} from 'viem';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { viemChainOf } from '../chain/clients.js';
import { decodeRevert } from '../chain/revert.js';
import { type ChainConfig, chainsFileSchema } from '../lib/chains.js';
import { manifestPathOf } from './devnet.js';

/**
 * A newcomer's wallet for the local devnet, as Foundry users know it (`cast wallet new`, `cast send`): a
 * fresh key kept under DATA_DIR, funded with the native coin and the devnet's test tokens, that signs and
 * sends a prepared answer of the API step by step. Only the local devnet: every call first checks that
 * the chain is an anvil on this machine with the chain id the answer names, so the key and the answers
 * meant for a real chain never meet.
 */

export class WalletError extends Error {}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

const mintAbi = [
  {
    type: 'function',
    name: 'mint',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'to', type: 'address' },
      { name: 'amount', type: 'uint256' },
    ],
    outputs: [],
  },
] as const;

/** The devnet's chains, as the running devnet wrote them (`${dataDir}/devnet/manifest.json`). */
export function devnetChains(dataDir: string): ChainConfig[] {
  const file = manifestPathOf(dataDir);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new WalletError(`no devnet manifest at ${file}: start the service first (npm start)`);
  }
  return chainsFileSchema.parse(JSON.parse(text)).chains;
}

export function chainOf(chains: readonly ChainConfig[], key: string): ChainConfig {
  const chain = chains.find((c) => c.key === key);
  if (!chain)
    throw new WalletError(`no devnet chain "${key}" (the devnet has ${chains.map((c) => c.key).join(', ')})`);
  return chain;
}

async function rpc(url: string, method: string, params: unknown[] = []): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
  } catch {
    throw new WalletError(`the chain at ${url} does not answer: is the devnet running (npm start)?`);
  }
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new WalletError(`${method} at ${url}: ${body.error.message}`);
  return body.result;
}

/** Refuses anything but an anvil on this machine answering `chain`'s id. */
export async function assertLocalDevnet(chain: ChainConfig): Promise<void> {
  const host = new URL(chain.rpcUrl).hostname;
  if (!LOOPBACK.has(host))
    throw new WalletError(
      `refused: ${chain.rpcUrl} is not on this machine; the wallet serves the local devnet only`,
    );
  const client = await rpc(chain.rpcUrl, 'web3_clientVersion').catch((err: unknown) => {
    if (err instanceof WalletError && /does not answer/.test(err.message)) throw err;
    return null;
  });
  if (typeof client !== 'string' || !client.toLowerCase().startsWith('anvil'))
    throw new WalletError(
      `refused: ${chain.rpcUrl} is not the devnet's anvil (web3_clientVersion: ${String(client)})`,
    );
  const id = Number(await rpc(chain.rpcUrl, 'eth_chainId'));
  if (id !== chain.chainId)
    throw new WalletError(
      `refused: ${chain.rpcUrl} answers chain id ${id}, not ${chain.chainId} (${chain.key})`,
    );
}

function walletsDir(dataDir: string): string {
  return path.resolve(dataDir, 'wallets');
}

function clientsOf(chain: ChainConfig, account: PrivateKeyAccount) {
  const viemChain = viemChainOf(chain);
  const transport = http(chain.rpcUrl, { retryCount: 0 });
  return {
    wallet: createWalletClient({ account, chain: viemChain, transport }),
    reader: createPublicClient({ chain: viemChain, transport, pollingInterval: 100 }),
  };
}

export interface Funding {
  /** Whole native coins. */
  native: string;
  /** Whole units of each test token. */
  tokens: string;
}

export interface CreatedWallet {
  address: Address;
  keyFile: string;
  funded: { symbol: string; amount: string }[];
}

/** A fresh key under `${dataDir}/wallets` (mode 600), funded on `chain`. */
export async function createWallet(
  dataDir: string,
  chain: ChainConfig,
  funding: Funding,
): Promise<CreatedWallet> {
  await assertLocalDevnet(chain);
  const privateKey = generatePrivateKey();
  const account = privateKeyToAccount(privateKey);
  const dir = walletsDir(dataDir);
  mkdirSync(dir, { recursive: true });
  const keyFile = path.join(dir, `${account.address}.json`);
  writeFileSync(keyFile, `${JSON.stringify({ address: account.address, privateKey }, null, 2)}\n`, {
    mode: 0o600,
  });
  chmodSync(keyFile, 0o600);

  const native = parseEther(funding.native);
  await rpc(chain.rpcUrl, 'anvil_setBalance', [account.address, `0x${native.toString(16)}`]);
  const { wallet, reader } = clientsOf(chain, account);
  const funded = [{ symbol: 'native', amount: native.toString() }];
  // The devnet's test tokens mint to anyone: the new wallet mints its own.
  for (const token of chain.tokens) {
    const amount = parseUnits(funding.tokens, token.decimals);
    const hash = await wallet.sendTransaction({
      to: getAddress(token.address),
      data: encodeFunctionData({ abi: mintAbi, functionName: 'mint', args: [account.address, amount] }),
    });
    await reader.waitForTransactionReceipt({ hash });
    funded.push({ symbol: token.symbol, amount: amount.toString() });
  }
  // Again after the mints' gas: the wallet holds what was asked for.
  await rpc(chain.rpcUrl, 'anvil_setBalance', [account.address, `0x${native.toString(16)}`]);
  return { address: account.address, keyFile, funded };
}

/** The wallets kept under `${dataDir}/wallets`. */
export function listWallets(dataDir: string): Address[] {
  try {
    return readdirSync(walletsDir(dataDir))
      .filter((name) => /^0x[0-9a-fA-F]{40}\.json$/.test(name))
      .map((name) => getAddress(name.slice(0, -5)));
  } catch {
    return [];
  }
}

function loadAccount(dataDir: string, address: string): PrivateKeyAccount {
  const file = path.join(walletsDir(dataDir), `${getAddress(address)}.json`);
  let key: unknown;
  try {
    key = (JSON.parse(readFileSync(file, 'utf8')) as { privateKey?: unknown }).privateKey;
  } catch {
    throw new WalletError(
      `no key for ${address} under ${walletsDir(dataDir)}: the answer was prepared for a wallet this tool did not create`,
    );
  }
  if (typeof key !== 'string' || !isHex(key) || key.length !== 66)
    throw new WalletError(`the key file ${file} holds no private key`);
  return privateKeyToAccount(key);
}

/** The part of a prepared answer (open, approvals, dock, swap) this tool reads. */
export interface PreparedAnswer {
  chain: string;
  chainId: number;
  wallet: string;
  transactions: { step: number; purpose: string; to: string; value: string; data: string }[];
}

/** A saved response body (`{ data: … }`) or its `data`, checked for what signing needs. */
export function preparedAnswerOf(body: unknown): PreparedAnswer {
  const data = (body as { data?: unknown } | null)?.data ?? body;
  const d = data as Partial<PreparedAnswer> | null;
  const steps = d?.transactions;
  if (
    !d ||
    typeof d.chain !== 'string' ||
    typeof d.chainId !== 'number' ||
    typeof d.wallet !== 'string' ||
    !Array.isArray(steps)
  )
    throw new WalletError(
      'not a prepared answer: expected a body of POST /v1/positions, /v1/swaps, …/approvals or …/dock',
    );
  for (const tx of steps)
    if (
      typeof tx?.to !== 'string' ||
      typeof tx.data !== 'string' ||
      !isHex(tx.data) ||
      typeof tx.value !== 'string' ||
      !/^[0-9]+$/.test(tx.value)
    )
      throw new WalletError('a transaction of the answer lacks `to`, `data` or `value`');
  return d as PreparedAnswer;
}

export interface SentStep {
  step: number;
  purpose: string;
  hash: Hex;
  block: bigint;
  gasUsed: bigint;
}

/** Hex revert data somewhere in a viem error's causes. */
function revertData(err: unknown): Hex | undefined {
  if (!(err instanceof BaseError)) return undefined;
  const found = err.walk((e) => typeof (e as { data?: unknown }).data === 'string');
  const data = (found as { data?: unknown } | null)?.data;
  return typeof data === 'string' && isHex(data) ? data : undefined;
}

/**
 * Signs and sends the answer's transactions in step order, each after the previous one's receipt, as
 * the integrator's own wallet would. A step that would revert stops the run with the decoded reason.
 */
export async function sendPrepared(
  dataDir: string,
  chains: readonly ChainConfig[],
  answer: PreparedAnswer,
  onStep: (step: SentStep) => void = () => {},
): Promise<SentStep[]> {
  const chain = chainOf(chains, answer.chain);
  if (chain.chainId !== answer.chainId)
    throw new WalletError(
      `the answer is for chain id ${answer.chainId}, the devnet's ${chain.key} is ${chain.chainId}`,
    );
  await assertLocalDevnet(chain);
  const account = loadAccount(dataDir, answer.wallet);
  const { wallet, reader } = clientsOf(chain, account);
  const sent: SentStep[] = [];
  for (const tx of [...answer.transactions].sort((a, b) => a.step - b.step)) {
    const request = { to: getAddress(tx.to), data: tx.data as Hex, value: BigInt(tx.value) };
    let hash: Hex;
    try {
      hash = await wallet.sendTransaction(request);
    } catch (err) {
      const reason = decodeRevert(revertData(err));
      throw new WalletError(
        `step ${tx.step} (${tx.purpose}) would revert: ${reason.reason}${reason.hint ? ` (${reason.hint})` : ''}`,
      );
    }
    const receipt = await reader.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success')
      throw new WalletError(`step ${tx.step} (${tx.purpose}) reverted on chain: ${hash}`);
    const step = {
      step: tx.step,
      purpose: tx.purpose,
      hash,
      block: receipt.blockNumber,
      gasUsed: receipt.gasUsed,
    };
    sent.push(step);
    onStep(step);
  }
  return sent;
}
