/**
 * A JSON-RPC chain served from a generated log set, for bench/backfill.ts, in a process of its own:
 *   node --import tsx bench/servers/chainStub.ts <port> <manifestFile>
 * The manifest (written by the bench) gives the contracts, tokens, strategies and the size. Every
 * block is computed from its number when asked (nothing held in memory but the strategies):
 * blocks 1..shipBlocks ship SHIPS_PER_BLOCK strategies each (Shipped + two Pushed), later blocks hold
 * `swapsPerBlock` swaps (Pulled + Pushed on Aqua, Swapped on the router). Block hashes link by parent
 * hash; times are 2 s apart and end `endAgeSeconds` before the stub started.
 *
 * Methods: eth_chainId, eth_blockNumber, eth_getBlockByNumber, eth_getLogs (refused with -32005 "query
 * returned more than 10000 results" like geth/Infura when the answer would be larger), batches; and
 * `stub_reorg [depth]`: the last `depth` blocks are replaced by depth + 1 others (other hashes, fewer
 * and other swaps), as a reorg does.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { encodeAbiParameters, type Hex, toEventSelector } from 'viem';
import { aquaAbi, routerAbi } from '../../chain/abi.js';
import { SHIPS_PER_BLOCK, type StubManifest } from './chainStubManifest.js';

export const MAX_RESULTS = 10_000;

const [portText, manifestFile] = process.argv.slice(2);
const manifest = JSON.parse(readFileSync(manifestFile!, 'utf8')) as StubManifest;
const aqua = manifest.aqua.toLowerCase();
const router = manifest.router.toLowerCase();
const [tokenA, tokenB] = manifest.tokens.map((t) => t.toLowerCase()) as [string, string];
const shipBlocks = Math.ceil(manifest.strategies.length / SHIPS_PER_BLOCK);
const baseHead = shipBlocks + manifest.swapBlocks;
const startTime = Math.floor(Date.now() / 1000) - manifest.endAgeSeconds - 2 * baseHead;

const topic = (abi: readonly unknown[], name: string) =>
  toEventSelector(
    (abi as { type: string; name: string }[]).find((e) => e.type === 'event' && e.name === name)! as never,
  );
const SHIPPED = topic(aquaAbi, 'Shipped');
const PULLED = topic(aquaAbi, 'Pulled');
const PUSHED = topic(aquaAbi, 'Pushed');
const SWAPPED = topic(routerAbi, 'Swapped');

/** Blocks from `forkFrom` on belong to fork `fork` (0: the original history). */
let head = baseHead;
let fork = 0;
let forkFrom = Number.POSITIVE_INFINITY;

const word = (hex: string) => hex.replace(/^0x/, '').padStart(64, '0');
const num = (n: number | bigint) => n.toString(16).padStart(64, '0');
const hex32 = (prefix: number, n: number, salt: number) =>
  `0x${prefix.toString(16).padStart(8, '0')}${salt.toString(16).padStart(8, '0')}${n.toString(16).padStart(48, '0')}`;

const forkOf = (n: number) => (n >= forkFrom ? fork : 0);
const blockHash = (n: number) => hex32(0xb10c, n, forkOf(n));
const txHash = (n: number, i: number) => hex32(0x7e, n * 64 + i, forkOf(n));
const timeOf = (n: number) => startTime + 2 * n;

const shippedData = manifest.strategies.map((s) =>
  encodeAbiParameters(
    [{ type: 'address' }, { type: 'address' }, { type: 'bytes32' }, { type: 'bytes' }],
    [s.maker as Hex, manifest.router as Hex, s.hash as Hex, s.strategy],
  ),
);

interface Log {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  blockHash: string;
  blockTimestamp: string;
  transactionHash: string;
  transactionIndex: string;
  logIndex: string;
  removed: false;
}

/** Swaps in block n: fewer on a fork, so a rewind that kept an orphaned swap is seen in the counts. */
const swapsIn = (n: number) =>
  forkOf(n) === 0 ? manifest.swapsPerBlock : Math.max(1, manifest.swapsPerBlock - 1);
const logsIn = (n: number) =>
  n < 1 || n > head
    ? 0
    : n <= shipBlocks
      ? 3 * Math.min(SHIPS_PER_BLOCK, manifest.strategies.length - (n - 1) * SHIPS_PER_BLOCK)
      : 3 * swapsIn(n);

function logsOf(n: number, out: Log[]): void {
  const common = {
    blockNumber: `0x${n.toString(16)}`,
    blockHash: blockHash(n),
    blockTimestamp: `0x${timeOf(n).toString(16)}`,
    removed: false as const,
  };
  let logIndex = 0;
  const push = (tx: number, address: string, topic0: string, data: string) =>
    out.push({
      ...common,
      address,
      topics: [topic0],
      data,
      transactionHash: txHash(n, tx),
      transactionIndex: `0x${tx.toString(16)}`,
      logIndex: `0x${(logIndex++).toString(16)}`,
    });
  if (n <= shipBlocks) {
    for (let k = 0; k < SHIPS_PER_BLOCK; k++) {
      const index = (n - 1) * SHIPS_PER_BLOCK + k;
      const s = manifest.strategies[index];
      if (!s) break;
      const head = `0x${word(s.maker)}${word(router)}${word(s.hash)}`;
      push(k, aqua, SHIPPED, shippedData[index]!);
      push(k, aqua, PUSHED, `${head}${word(tokenA)}${num(1_000_000_000_000n)}`);
      push(k, aqua, PUSHED, `${head}${word(tokenB)}${num(1_000_000_000_000n)}`);
    }
    return;
  }
  for (let j = 0; j < swapsIn(n); j++) {
    const s = manifest.strategies[(n * 7 + j * 13) % manifest.strategies.length]!;
    const amountIn = BigInt(1_000_000 * (1 + ((n + j + forkOf(n)) % 97)));
    const amountOut = (amountIn * 997n) / 1000n;
    const aToB = (n + j) % 2 === 0;
    const [tokenIn, tokenOut] = aToB ? [tokenA, tokenB] : [tokenB, tokenA];
    const head = `0x${word(s.maker)}${word(router)}${word(s.hash)}`;
    push(j, aqua, PULLED, `${head}${word(tokenOut)}${num(amountOut)}`);
    push(j, aqua, PUSHED, `${head}${word(tokenIn)}${num(amountIn)}`);
    push(
      j,
      router,
      SWAPPED,
      `0x${word(s.hash)}${word(s.maker)}${word(manifest.taker)}${word(tokenIn)}${word(tokenOut)}${num(amountIn)}${num(amountOut)}`,
    );
  }
}

const blockOf = (n: number) =>
  n < 0 || n > head
    ? null
    : {
        number: `0x${n.toString(16)}`,
        hash: blockHash(n),
        parentHash: n === 0 ? `0x${'0'.repeat(64)}` : blockHash(n - 1),
        timestamp: `0x${timeOf(n).toString(16)}`,
      };

interface Call {
  jsonrpc?: string;
  id?: unknown;
  method?: string;
  params?: unknown[];
}

const blockParam = (value: unknown) => (value === 'latest' || value === undefined ? head : Number(value));

function answer(call: Call): object {
  const ok = (result: unknown) => ({ jsonrpc: '2.0', id: call.id, result });
  const fail = (code: number, message: string) => ({ jsonrpc: '2.0', id: call.id, error: { code, message } });
  switch (call.method) {
    case 'eth_chainId':
      return ok(`0x${manifest.chainId.toString(16)}`);
    case 'eth_blockNumber':
      return ok(`0x${head.toString(16)}`);
    case 'eth_getBlockByNumber':
      return ok(blockOf(blockParam(call.params?.[0])));
    case 'eth_getLogs': {
      const filter = (call.params?.[0] ?? {}) as { fromBlock?: string; toBlock?: string };
      const from = Math.max(0, blockParam(filter.fromBlock));
      const to = Math.min(head, blockParam(filter.toBlock));
      let count = 0;
      for (let n = from; n <= to; n++) count += logsIn(n);
      if (count > MAX_RESULTS) return fail(-32005, `query returned more than ${MAX_RESULTS} results`);
      const logs: Log[] = [];
      for (let n = from; n <= to; n++) logsOf(n, logs);
      return ok(logs);
    }
    case 'stub_reorg': {
      const depth = Number(call.params?.[0] ?? 1);
      fork += 1;
      forkFrom = head - depth + 1;
      head += 1;
      return ok({ forkFrom, head });
    }
    case 'stub_expected': {
      // What an index of the whole chain as it is now holds: swaps and logs.
      let swaps = 0;
      let logs = 0;
      for (let n = 1; n <= head; n++) {
        logs += logsIn(n);
        if (n > shipBlocks) swaps += swapsIn(n);
      }
      return ok({ swaps, logs, head });
    }
    default:
      return fail(-32601, `method ${call.method} not served by the stub`);
  }
}

createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    let body: string;
    try {
      const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Call | Call[];
      body = JSON.stringify(Array.isArray(parsed) ? parsed.map(answer) : answer(parsed));
    } catch {
      body = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } });
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
}).listen(Number(portText), '127.0.0.1', () => process.stdout.write('ready\n'));
