import { CHAIN_KEY_SHAPE, readChainsFile } from '../lib/chains.js';
import type { ChainConfig, Config, TokenConfig } from '../lib/config.js';
import { ApiError } from '../lib/errors.js';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/**
 * The chains the service serves, as configured (CHAINS_FILE) or as the devnet reported them. Every
 * chain key, address and token mapping is read from here: none is hardcoded elsewhere.
 */
export class ChainRegistry {
  private readonly chains: readonly ChainConfig[];
  private readonly byKey = new Map<string, ChainConfig>();
  /** lower-case chain key → chain: a key is matched in any case */
  private readonly byLowerKey = new Map<string, ChainConfig>();
  private readonly byId = new Map<number, ChainConfig>();
  /** chain key → lower-case symbol or lower-case address → token */
  private readonly tokens = new Map<string, Map<string, TokenConfig>>();
  /** chain key → its router, lower case */
  private readonly routers = new Map<string, string>();
  /** Every symbol listed, by lower case, in its configured spelling (a later chain's where they differ). */
  private readonly symbolSpellings = new Map<string, string>();

  constructor(chains: readonly ChainConfig[]) {
    this.chains = chains;
    for (const chain of chains) {
      if (this.byKey.has(chain.key)) throw new Error(`duplicate chain key "${chain.key}"`);
      if (this.byId.has(chain.chainId)) throw new Error(`duplicate chain id ${chain.chainId}`);
      this.byKey.set(chain.key, chain);
      this.byLowerKey.set(chain.key.toLowerCase(), chain);
      this.byId.set(chain.chainId, chain);
      const index = new Map<string, TokenConfig>();
      for (const token of chain.tokens) {
        index.set(token.symbol.toLowerCase(), token);
        index.set(token.address.toLowerCase(), token);
        this.symbolSpellings.set(token.symbol.toLowerCase(), token.symbol);
      }
      this.tokens.set(chain.key, index);
      this.routers.set(chain.key, chain.router.toLowerCase());
    }
  }

  list(): readonly ChainConfig[] {
    return this.chains;
  }

  keys(): string[] {
    return this.chains.map((c) => c.key);
  }

  get(key: string): ChainConfig | undefined {
    return this.byKey.get(key);
  }

  /**
   * The chain of a key in any case, or 422 UNSUPPORTED_CHAIN naming the parameter and the live keys:
   * the one answer every path gives for a chain it does not serve. `isDefault` says the key is also the
   * parameter's documented default, so the message tells a caller who never typed it where it came from.
   */
  require(key: string, parameter?: string, isDefault = false): ChainConfig {
    const chain = this.byKey.get(key) ?? this.byLowerKey.get(key.toLowerCase());
    if (chain) return chain;
    // Not the shape of any chain key (a NUL, a space, a symbol): malformed, not merely unknown.
    if (!CHAIN_KEY_SHAPE.test(key)) {
      throw ApiError.invalid(
        parameter ?? 'chain',
        `${parameter ?? 'chain'} must be a chain key: a letter, then letters, digits, "-" or "_" (at most 64).`,
      );
    }
    const expected = this.keys().join(', ') || 'none';
    const message = isDefault
      ? `Chain "${key}" (the default when ${parameter ?? 'chain'} is not given) is not supported. Supported chains: ${expected}.`
      : `Chain "${key}" is not supported. Supported chains: ${expected}.`;
    throw new ApiError('UNSUPPORTED_CHAIN', message, {
      ...(parameter === undefined ? {} : { parameter }),
      issues: [{ type: 'UNSUPPORTED_CHAIN', expected, actual: key }],
    });
  }

  /** Whether `address` (any case) is the chain's router. */
  isRouter(key: string, address: string): boolean {
    const router = this.routers.get(key);
    return router !== undefined && (address === router || address.toLowerCase() === router);
  }

  /** Every symbol the chains list, by lower case, in its configured spelling. */
  symbols(): ReadonlyMap<string, string> {
    return this.symbolSpellings;
  }

  byChainId(chainId: number): ChainConfig | undefined {
    return this.byId.get(chainId);
  }

  /** A token of the chain by symbol or by address, both case-insensitive. */
  token(chainKey: string, symbolOrAddress: string): TokenConfig | undefined {
    return this.tokens.get(chainKey)?.get(symbolOrAddress.trim().toLowerCase());
  }

  /** The tokens a position may be opened with on the chain (SPEC §2.4): `depositSymbols`, else all. */
  depositTokens(chainKey: string): TokenConfig[] {
    const chain = this.get(chainKey);
    if (!chain) return [];
    const allowed = chain.depositSymbols && new Set(chain.depositSymbols.map((s) => s.toUpperCase()));
    return chain.tokens.filter((t) => !allowed || allowed.has(t.symbol.toUpperCase()));
  }

  /** A deposit token by symbol or address, undefined when the chain does not take it for positions. */
  depositToken(chainKey: string, symbolOrAddress: string): TokenConfig | undefined {
    const token = this.token(chainKey, symbolOrAddress);
    return token && this.depositTokens(chainKey).includes(token) ? token : undefined;
  }

  tokenByAddress(chainKey: string, address: string): TokenConfig | undefined {
    if (!ADDRESS.test(address)) return undefined;
    return this.tokens.get(chainKey)?.get(address.toLowerCase());
  }
}

/**
 * The registry of the configured chains: CHAINS_FILE when set (the devnet is then not used), otherwise
 * the chains of the devnet the caller started.
 */
export function loadChains(
  config: Pick<Config, 'chainsFile'>,
  devnetChains?: readonly ChainConfig[],
): ChainRegistry {
  if (config.chainsFile !== undefined) return new ChainRegistry(readChainsFile(config.chainsFile));
  if (devnetChains && devnetChains.length > 0) return new ChainRegistry(devnetChains);
  throw new Error('no chains: set CHAINS_FILE or start the devnet');
}
