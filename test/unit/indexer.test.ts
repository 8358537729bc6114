import {
  type Address,
  decodeEventLog,
  encodeAbiParameters,
  encodeEventTopics,
  type Hex,
  keccak256,
  toHex,
} from 'viem';
import { describe, expect, it } from 'vitest';
import { aquaAbi, routerAbi } from '../../chain/abi.js';
import { ARG_WIDTH, INSTRUCTIONS } from '../../chain/instructions.js';
import { AQUA_TRAITS, encodeStrategy } from '../../chain/order.js';
import { buildProgram, decodeProgram, salt, xycSwap } from '../../chain/program.js';
import { ChainRegistry } from '../../chain/registry.js';
import { buildBatch, pairKeyOf, shortAddress } from '../../indexer/batch.js';
import { decodeLogs, type RpcLog } from '../../indexer/events.js';
import type { ChainConfig } from '../../lib/config.js';

const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as Address;
const AQUA = addr(0xa0a);
const ROUTER = addr(0xb0b);
const USDC = addr(0x10);
const EURC = addr(0x12);
const MAKER = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8' as Address;

const chain: ChainConfig = {
  key: 'base',
  chainId: 8453,
  rpcUrl: 'http://127.0.0.1:9',
  aqua: AQUA,
  router: ROUTER,
  multicall: addr(3),
  feeReceiver: addr(4),
  testnet: false,
  startBlock: 0,
  tokens: [
    { symbol: 'USDC', address: USDC, decimals: 6 },
    { symbol: 'EURC', address: EURC, decimals: 6 },
  ],
};
const registry = new ChainRegistry([chain]);

let logIndex = 0;
function log(
  address: Address,
  abi: typeof aquaAbi | typeof routerAbi,
  eventName: string,
  args: readonly unknown[],
  block = 7,
  tx: Hex = `0x${'ab'.repeat(32)}`,
): RpcLog {
  const item = (abi as readonly { type: string; name?: string; inputs?: unknown }[]).find(
    (x) => x.type === 'event' && x.name === eventName,
  ) as { inputs: readonly { type: string; name: string }[] };
  return {
    address,
    // biome-ignore lint/suspicious/noExplicitAny: the event name is chosen at run time in this helper
    topics: encodeEventTopics({ abi, eventName } as any) as Hex[],
    data: encodeAbiParameters(item.inputs, args),
    blockNumber: `0x${block.toString(16)}`,
    blockHash: `0x${'11'.repeat(32)}`,
    blockTimestamp: '0x6b000000',
    transactionHash: tx,
    logIndex: `0x${(logIndex++).toString(16)}`,
  };
}

describe('decodeLogs', () => {
  const hash = keccak256('0x01');
  const logs = [
    log(ROUTER, routerAbi, 'Swapped', [hash, MAKER, addr(9), USDC, EURC, 1_234_567n, 1_111_111n]),
    log(AQUA, aquaAbi, 'Pulled', [MAKER, ROUTER, hash, EURC, 2n ** 247n]),
    log(AQUA, aquaAbi, 'Pushed', [MAKER, ROUTER, hash, USDC, 5n]),
    log(AQUA, aquaAbi, 'Docked', [MAKER, ROUTER, hash]),
    log(AQUA, aquaAbi, 'Shipped', [MAKER, ROUTER, hash, '0xdeadbeef']),
  ];

  it('reads every argument as viem decodes it, addresses and hashes lower-case', () => {
    const events = decodeLogs(logs, { aqua: AQUA, router: ROUTER });
    expect(events).toHaveLength(5);
    events.forEach((event, i) => {
      const raw = logs[i]!;
      const abi: readonly unknown[] = raw.address === ROUTER ? routerAbi : aquaAbi;
      const viem = decodeEventLog({
        abi: abi as typeof aquaAbi,
        data: raw.data,
        topics: raw.topics as [Hex],
      });
      expect(event.kind).toBe(viem.eventName);
      const ours = event as unknown as Record<string, unknown>;
      for (const [name, value] of Object.entries(viem.args as Record<string, unknown>)) {
        expect(ours[name], name).toEqual(typeof value === 'string' ? value.toLowerCase() : value);
      }
    });
  });

  it('skips logs of other contracts, other topics, wrong lengths and dirty address words', () => {
    const pulled = logs[1]!;
    const dirty = `0x${'ff'.repeat(12)}${pulled.data.slice(26)}` as Hex;
    const bad: RpcLog[] = [
      { ...pulled, address: addr(0xdead) },
      { ...logs[0]!, address: AQUA },
      { ...pulled, data: `${pulled.data}00` as Hex },
      { ...pulled, data: dirty },
      { ...pulled, removed: true },
    ];
    expect(decodeLogs(bad, { aqua: AQUA, router: ROUTER })).toEqual([]);
  });
});

describe('buildBatch', () => {
  const ship = (
    order: { maker: Address; traits: bigint },
    tokens: Address[],
    shipper = MAKER,
    tx: Hex = '0x01',
    data: Hex = buildProgram([xycSwap(), salt(1n)]),
  ) => {
    const strategy = encodeStrategy({ ...order, data });
    const hash = keccak256(strategy);
    return {
      hash,
      logs: [
        log(AQUA, aquaAbi, 'Shipped', [shipper, ROUTER, hash, strategy], 7, tx),
        ...tokens.map((t, i) =>
          log(AQUA, aquaAbi, 'Pushed', [shipper, ROUTER, hash, t, 1000n + BigInt(i)], 7, tx),
        ),
      ],
    };
  };
  const build = (logs: RpcLog[]) =>
    buildBatch(
      { chainKey: 'base', registry, prices: { USDC: 1, EURC: 2 }, blockTimes: new Map([[7, 1_700_000_000]]) },
      decodeLogs(logs, { aqua: AQUA, router: ROUTER }),
    );

  it('keeps a strategy whatever its program: every table opcode, unknown, truncated, empty, garbage', () => {
    const everyOpcode = INSTRUCTIONS.map((spec) => {
      const width = spec.args.reduce((n, a) => n + (a.type === 'bytes' ? 0 : ARG_WIDTH[a.type]), 0);
      return `0x${toHex(spec.opcode, { size: 1 }).slice(2)}${toHex(width, { size: 1 }).slice(2)}${'00'.repeat(width)}` as Hex;
    });
    const programs: Hex[] = [
      '0x',
      buildProgram(everyOpcode),
      '0xff00',
      '0x22',
      '0x1c180007',
      '0x15020001',
      `0x${'1100'.repeat(5_000)}`,
      keccak256('0x02'),
    ];
    programs.forEach((data, i) => {
      const { hash, logs } = ship(
        { maker: MAKER, traits: AQUA_TRAITS },
        [USDC, EURC],
        MAKER,
        toHex(i + 10),
        data,
      );
      const rows = build(logs).strategies;
      expect(
        rows.map((r) => r.hash),
        data.slice(0, 20),
      ).toEqual([hash]);
      expect(JSON.parse(rows[0]!.program)).toEqual(decodeProgram(data));
    });
  });

  it('makes a two-token strategy: token_a the lower address, pair key in symbol order', () => {
    const stranger = addr(0x1);
    const { hash, logs } = ship({ maker: MAKER, traits: AQUA_TRAITS }, [EURC, stranger]);
    const [row] = build(logs).strategies;
    expect(row).toMatchObject({
      hash,
      tokenA: stranger,
      tokenB: EURC.toLowerCase(),
      symbolA: shortAddress(stranger),
      decimalsA: null,
      symbolB: 'EURC',
      pairKey: pairKeyOf('EURC', shortAddress(stranger)),
      initialA: '1001',
      initialB: '1000',
      time: '2023-11-14T22:13:20.000Z',
    });
    expect(row!.pairKey).toBe('0x0000...0001/EURC');
  });

  it('keeps only orders with the Aqua bit, shipped by their own maker', () => {
    expect(build(ship({ maker: MAKER, traits: 0n }, [USDC, EURC]).logs).strategies).toEqual([]);
    expect(build(ship({ maker: addr(0x77), traits: AQUA_TRAITS }, [USDC, EURC]).logs).strategies).toEqual([]);
  });

  it('prices a swap by its input token; unknown tokens count zero', () => {
    const hash = keccak256('0x02');
    const batch = build([
      log(ROUTER, routerAbi, 'Swapped', [hash, MAKER, addr(9), EURC, USDC, 2_500_000n, 1n]),
      log(ROUTER, routerAbi, 'Swapped', [hash, MAKER, addr(9), addr(0x99), USDC, 2_500_000n, 1n]),
    ]);
    expect(batch.swaps.map((s) => s.volumeUsd)).toEqual([5, 0]);
  });
});
