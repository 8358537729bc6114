/**
 * The events the indexer follows (PROTOCOL.md "What an indexer follows"). No argument is indexed:
 * logs are selected by address and topic0 only, and every argument is decoded from the data.
 */
import { type AbiEvent, decodeEventLog, type Hex, toEventSelector } from 'viem';
import { aquaAbi, routerAbi } from '../chain/abi.js';

/** A log as `eth_getLogs` returns it (anvil and recent nodes add `blockTimestamp`). */
export interface RpcLog {
  address: Hex;
  topics: Hex[];
  data: Hex;
  blockNumber: Hex;
  blockHash: Hex;
  blockTimestamp?: Hex;
  transactionHash: Hex;
  logIndex: Hex;
  removed?: boolean;
}

/** Where a log sits; every address and hash is lower-case hex, as the catalogue stores them. */
export interface LogRef {
  blockNumber: number;
  txHash: string;
  logIndex: number;
}

export type ChainEvent =
  | (LogRef & { kind: 'Shipped'; maker: string; app: string; strategyHash: string; strategy: Hex })
  | (LogRef & { kind: 'Docked'; maker: string; app: string; strategyHash: string })
  | (LogRef & {
      kind: 'Pulled' | 'Pushed';
      maker: string;
      app: string;
      strategyHash: string;
      token: string;
      amount: bigint;
    })
  | (LogRef & {
      kind: 'Swapped';
      orderHash: string;
      maker: string;
      taker: string;
      tokenIn: string;
      tokenOut: string;
      amountIn: bigint;
      amountOut: bigint;
    });

export type EventKind = ChainEvent['kind'];

function eventOf(abi: readonly unknown[], name: string): AbiEvent {
  const item = (abi as readonly AbiEvent[]).find((x) => x.type === 'event' && x.name === name);
  if (!item) throw new Error(`event ${name} missing from the ABI`);
  return item;
}

const AQUA_EVENTS = ['Shipped', 'Docked', 'Pulled', 'Pushed'].map((name) => eventOf(aquaAbi, name));
const SWAPPED = eventOf(routerAbi, 'Swapped');

/**
 * How an event's data is read, from its ABI item: the position of each argument by name, and whether
 * every argument is one non-indexed word (address, bytes32, uintN) so it can be read by offset.
 */
interface EventLayout {
  event: AbiEvent;
  name: string;
  static: boolean;
  types: ('address' | 'uint' | 'word')[];
  at: Record<string, number>;
}

function layoutOf(event: AbiEvent): EventLayout {
  return {
    event,
    name: event.name,
    static: event.inputs.every((i) => !i.indexed && /^(address|bytes32|uint\d*)$/.test(i.type)),
    types: event.inputs.map((i) =>
      i.type === 'address' ? 'address' : i.type.startsWith('uint') ? 'uint' : 'word',
    ),
    at: Object.fromEntries(event.inputs.map((i, n) => [i.name!, n])),
  };
}

/** topic0 → the event's layout, per emitting contract. */
const AQUA_TOPICS = new Map<string, EventLayout>(AQUA_EVENTS.map((e) => [toEventSelector(e), layoutOf(e)]));
const ROUTER_TOPICS = new Map<string, EventLayout>([[toEventSelector(SWAPPED), layoutOf(SWAPPED)]]);

/** Every topic0 the indexer asks for: one `eth_getLogs` filter (both addresses, any of these). */
export const FOLLOWED_TOPICS: Hex[] = [...AQUA_TOPICS.keys(), ...ROUTER_TOPICS.keys()] as Hex[];

const HEX_DATA = /^0x[0-9a-f]*$/;
const ADDRESS_PADDING = '000000000000000000000000';

/**
 * The arguments of a log in ABI order. A static event (Docked, Pulled, Pushed, Swapped) is read
 * straight from its words: addresses come out lower-case, without viem's checksumming, which was most
 * of the ingest time. Shipped (dynamic bytes) goes through viem's decodeEventLog. Either way the data
 * must have exactly the ABI's shape, or the log is skipped (null).
 */
function decodeValues(layout: EventLayout, log: RpcLog): unknown[] | null {
  if (!layout.static) {
    try {
      const { args } = decodeEventLog({ abi: [layout.event], data: log.data, topics: log.topics as [Hex] });
      const named = args as unknown as Record<string, unknown>;
      return layout.event.inputs.map((i) => {
        const value = named[i.name!];
        return typeof value === 'string' ? value.toLowerCase() : value;
      });
    } catch {
      return null;
    }
  }
  const hex = log.data.toLowerCase();
  const count = layout.types.length;
  if (hex.length !== 2 + 64 * count || !HEX_DATA.test(hex)) return null;
  const values = new Array<unknown>(count);
  for (let i = 0; i < count; i++) {
    const start = 2 + 64 * i;
    const type = layout.types[i];
    if (type === 'address') {
      if (!hex.startsWith(ADDRESS_PADDING, start)) return null;
      values[i] = `0x${hex.slice(start + 24, start + 64)}`;
    } else if (type === 'uint') {
      values[i] = BigInt(`0x${hex.slice(start, start + 64)}`);
    } else {
      values[i] = `0x${hex.slice(start, start + 64)}`;
    }
  }
  return values;
}

/**
 * Decodes the logs of one chunk into events, ordered by (block, log index). A log from another
 * address, with another topic0, removed by a reorg, or whose data does not decode is skipped.
 */
export function decodeLogs(
  logs: readonly RpcLog[],
  contracts: { aqua: string; router: string },
): ChainEvent[] {
  const aqua = contracts.aqua.toLowerCase();
  const router = contracts.router.toLowerCase();
  const events: ChainEvent[] = [];
  for (const log of logs) {
    if (log.removed) continue;
    const address = log.address.toLowerCase();
    const topic0 = log.topics[0]?.toLowerCase();
    if (!topic0) continue;
    const layout =
      address === aqua ? AQUA_TOPICS.get(topic0) : address === router ? ROUTER_TOPICS.get(topic0) : undefined;
    if (!layout) continue;
    const v = decodeValues(layout, log);
    if (!v) continue;
    const at = layout.at;
    // Plain literals, no spread: V8's object spread is ~100× slower and this runs per log.
    const blockNumber = Number(log.blockNumber);
    const txHash = log.transactionHash.toLowerCase();
    const logIndex = Number(log.logIndex);
    switch (layout.name) {
      case 'Shipped':
        events.push({
          blockNumber,
          txHash,
          logIndex,
          kind: 'Shipped',
          maker: v[at.maker!] as string,
          app: v[at.app!] as string,
          strategyHash: v[at.strategyHash!] as string,
          strategy: v[at.strategy!] as Hex,
        });
        break;
      case 'Docked':
        events.push({
          blockNumber,
          txHash,
          logIndex,
          kind: 'Docked',
          maker: v[at.maker!] as string,
          app: v[at.app!] as string,
          strategyHash: v[at.strategyHash!] as string,
        });
        break;
      case 'Pulled':
      case 'Pushed':
        events.push({
          blockNumber,
          txHash,
          logIndex,
          kind: layout.name === 'Pulled' ? 'Pulled' : 'Pushed',
          maker: v[at.maker!] as string,
          app: v[at.app!] as string,
          strategyHash: v[at.strategyHash!] as string,
          token: v[at.token!] as string,
          amount: v[at.amount!] as bigint,
        });
        break;
      case 'Swapped':
        events.push({
          blockNumber,
          txHash,
          logIndex,
          kind: 'Swapped',
          orderHash: v[at.orderHash!] as string,
          maker: v[at.maker!] as string,
          taker: v[at.taker!] as string,
          tokenIn: v[at.tokenIn!] as string,
          tokenOut: v[at.tokenOut!] as string,
          amountIn: v[at.amountIn!] as bigint,
          amountOut: v[at.amountOut!] as bigint,
        });
        break;
    }
  }
  events.sort((a, b) => a.blockNumber - b.blockNumber || a.logIndex - b.logIndex);
  return events;
}
