import DataLoader from 'dataloader';
import type { Address } from 'viem';
import { erc20Abi } from '../chain/abi.js';
import type { Services } from '../lib/services.js';
import { type StrategyDetailRow, strategiesByHashes } from '../store/catalogue.js';
import { type MakerRow, makersByKeys } from '../store/makers.js';
import { readRollup, type StoredRollup } from '../store/rollups.js';

/** What the catalogue shows of a token. */
export interface TokenInfo {
  symbol: string | null;
  decimals: number | null;
}

export interface CatalogueLoaders {
  /** Every stored strategy (on any chain, open or docked) with this lower-case hash; [] if none. */
  strategiesByHash: DataLoader<string, StrategyDetailRow[]>;
  /** A token by `${chainKey}:${lowerCaseAddress}`: the registry first, then the token contract itself. */
  token: DataLoader<string, TokenInfo | null>;
  /** A roll-up by name, read once per request however many fields need it. */
  rollup: DataLoader<string, StoredRollup | null>;
  /** A maker's row by chain key and lower-case address: a page of ranked makers reads them in one query. */
  maker: DataLoader<{ chain: string; maker: string }, MakerRow | null, string>;
}

export const tokenKey = (chain: string, address: string): string => `${chain}:${address.toLowerCase()}`;

export function createCatalogueLoaders(services: Services): CatalogueLoaders {
  return {
    strategiesByHash: new DataLoader(async (hashes) => {
      const rows = await strategiesByHashes(services.db, hashes);
      const byHash = new Map<string, StrategyDetailRow[]>();
      for (const row of rows) byHash.set(row.strategy_hash, [...(byHash.get(row.strategy_hash) ?? []), row]);
      return hashes.map((hash) => byHash.get(hash) ?? []);
    }),
    token: new DataLoader((keys) => loadTokens(services, keys)),
    rollup: new DataLoader((names) => Promise.all(names.map((name) => readRollup(services.db, name)))),
    maker: new DataLoader(
      async (keys) => {
        const rows = await makersByKeys(services.db, keys);
        const byKey = new Map(rows.map((r) => [`${r.chain_key}:${r.maker}`, r]));
        return keys.map((k) => byKey.get(`${k.chain}:${k.maker}`) ?? null);
      },
      { cacheKeyFn: (k) => `${k.chain}:${k.maker}` },
    ),
  };
}

/**
 * A token's symbol and decimals never change: what a contract answered once is kept for the life of
 * the process (per service), so only the first read of a token outside the registry costs a call.
 */
const readTokens = new WeakMap<Services, Map<string, TokenInfo>>();

/**
 * Tokens of the registry come from configuration. Any other token (a strategy of a token the operator
 * did not list) is read from its contract, one multicall per chain for the whole batch; a token that
 * does not answer stays unknown rather than failing the read.
 */
async function loadTokens(services: Services, keys: readonly string[]): Promise<(TokenInfo | null)[]> {
  let memo = readTokens.get(services);
  if (!memo) {
    memo = new Map();
    readTokens.set(services, memo);
  }
  const out = new Map<string, TokenInfo | null>();
  const missing = new Map<string, string[]>();
  for (const key of keys) {
    const [chain, address] = key.split(':') as [string, string];
    const known = services.registry.tokenByAddress(chain, address);
    const remembered = memo.get(key);
    if (known) {
      out.set(key, { symbol: known.symbol, decimals: known.decimals });
    } else if (remembered) {
      out.set(key, remembered);
    } else if (services.registry.get(chain) && /^0x[0-9a-f]{40}$/.test(address)) {
      missing.set(chain, [...(missing.get(chain) ?? []), address]);
    } else {
      out.set(key, null);
    }
  }
  await Promise.all(
    [...missing].map(async ([chain, addresses]) => {
      try {
        const contracts = addresses.flatMap((address) => [
          { address: address as Address, abi: erc20Abi, functionName: 'symbol' } as const,
          { address: address as Address, abi: erc20Abi, functionName: 'decimals' } as const,
        ]);
        const results = await services.clients.get(chain).multicall({ contracts, allowFailure: true });
        addresses.forEach((address, i) => {
          const symbol = results[2 * i];
          const decimals = results[2 * i + 1];
          const info = {
            symbol: symbol?.status === 'success' ? String(symbol.result) : null,
            decimals: decimals?.status === 'success' ? Number(decimals.result) : null,
          };
          out.set(tokenKey(chain, address), info);
          if (info.symbol !== null && info.decimals !== null) memo.set(tokenKey(chain, address), info);
        });
      } catch {
        for (const address of addresses) out.set(tokenKey(chain, address), null);
      }
    }),
  );
  return keys.map((key) => out.get(key) ?? null);
}
