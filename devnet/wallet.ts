import { type Address, type Client, createClient, type Hash, type Hex, http } from 'viem';

/**
 * Devnet-only transaction sending. The wallets are anvil's unlocked default accounts: anvil signs
 * (`eth_sendTransaction`), so no private key exists in this code either.
 */

export type DevnetRpc = Client;

/** A client for seeding: JSON-RPC batching of the calls made in the same tick (one HTTP request). */
export function devnetRpc(rpcUrl: string): DevnetRpc {
  return createClient({
    transport: http(rpcUrl, { batch: { batchSize: 200, wait: 0 }, retryCount: 0, timeout: 20_000 }),
    pollingInterval: 50,
  });
}

interface RpcReceipt {
  transactionHash: Hash;
  status: Hex;
  contractAddress: Address | null;
  blockNumber: Hex;
  gasUsed: Hex;
}

export interface TxRequest {
  to?: Address;
  data: Hex;
  /** Explicit gas: pipelined transactions may depend on state not mined yet, so no estimate. */
  gas: bigint;
}

/**
 * One account sending pipelined transactions with explicit, sequential nonces: none waits for the
 * previous one to be mined, only for anvil to have accepted it.
 */
export class PipelinedWallet {
  private nonce: number;
  private readonly sent: Promise<Hash>[] = [];
  private last: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly rpc: DevnetRpc,
    readonly address: Address,
    nonce: number,
  ) {
    this.nonce = nonce;
  }

  static async open(rpc: DevnetRpc, address: Address): Promise<PipelinedWallet> {
    const count = await rpc.request({ method: 'eth_getTransactionCount', params: [address, 'pending'] });
    return new PipelinedWallet(rpc, address, Number(count));
  }

  /** The nonce the next `send` uses (for CREATE addresses). */
  get nextNonce(): number {
    return this.nonce;
  }

  send(tx: TxRequest): Promise<Hash> {
    const nonce = this.nonce++;
    // One account's transactions reach anvil in nonce order: a later nonce arriving first (separate
    // HTTP requests race under load) can sit in anvil's queue unmined. Other accounts still overlap.
    const hash = this.last.then(() =>
      this.rpc.request({
        method: 'eth_sendTransaction',
        params: [
          {
            from: this.address,
            ...(tx.to === undefined ? {} : { to: tx.to }),
            data: tx.data,
            gas: `0x${tx.gas.toString(16)}`,
            nonce: `0x${nonce.toString(16)}`,
          },
        ],
      }),
    );
    this.last = hash.catch(() => undefined);
    this.sent.push(hash);
    return hash;
  }

  /** Every transaction sent so far, mined and successful. */
  async settle(timeoutMs = 15_000): Promise<RpcReceipt[]> {
    const hashes = await Promise.all(this.sent.splice(0));
    return waitForReceipts(this.rpc, hashes, timeoutMs);
  }
}

/** Polls until every transaction is mined; throws when one reverted or the timeout passes. */
export async function waitForReceipts(
  rpc: DevnetRpc,
  hashes: Hash[],
  timeoutMs = 15_000,
): Promise<RpcReceipt[]> {
  const receipts = new Map<Hash, RpcReceipt>();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pending = hashes.filter((h) => !receipts.has(h));
    if (pending.length === 0) break;
    const found = await Promise.all(
      pending.map(
        (hash) =>
          rpc.request({ method: 'eth_getTransactionReceipt', params: [hash] }) as Promise<RpcReceipt | null>,
      ),
    );
    for (const receipt of found) if (receipt) receipts.set(receipt.transactionHash, receipt);
    if (receipts.size === hashes.length) break;
    if (Date.now() > deadline)
      throw new Error(`${hashes.length - receipts.size} transaction(s) not mined in time`);
    await sleep(5);
  }
  const ordered = hashes.map((h) => receipts.get(h)!);
  const failed = ordered.find((r) => r.status !== '0x1');
  if (failed) throw new Error(`transaction ${failed.transactionHash} reverted`);
  return ordered;
}

/**
 * Sends one transaction and waits for it, letting anvil pick the nonce and estimate the gas: a call that
 * would revert fails here, before anything is mined.
 */
export async function sendAndWait(
  rpc: DevnetRpc,
  from: Address,
  to: Address,
  data: Hex,
): Promise<RpcReceipt> {
  const hash = await rpc.request({ method: 'eth_sendTransaction', params: [{ from, to, data }] });
  const [receipt] = await waitForReceipts(rpc, [hash], 10_000);
  return receipt!;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
