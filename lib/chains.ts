/**
 * The chains the service serves: the validated shape of one chain (ChainConfig) and CHAINS_FILE, whose
 * entries lie over the presets of lib/chainPresets.ts (an entry may give only its RPC URLs and fee receiver).
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { CHAIN_PRESETS, presetOf } from './chainPresets.js';

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte address');

export const tokenConfigSchema = z
  .object({
    symbol: z.string().min(1),
    address,
    decimals: z.number().int().min(0).max(36),
    /** Its USD price, fixed: a peg the operator states (a dollar stablecoin's 1). */
    usd: z.number().positive().finite().optional(),
    /**
     * A Chainlink-style USD price feed of the token on this chain (`decimals()`, `latestRoundData()`),
     * read every PRICE_REFRESH_MS (chain/prices.ts).
     */
    usdFeed: address.optional(),
  })
  .refine((t) => t.usd === undefined || t.usdFeed === undefined, {
    message: 'give usd (a fixed price) or usdFeed (a price feed), not both',
    path: ['usdFeed'],
  });

/** What a chain key looks like: a value of another shape in a request is malformed (400), not unknown (422). */
export const CHAIN_KEY_SHAPE = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
/** The curves a position can run: x·y=k, x·y=k concentrated in a price range, the pegged curve. */
export const STRATEGY_KINDS = ['xyc', 'concentrated', 'pegged'] as const;
export type StrategyKind = (typeof STRATEGY_KINDS)[number];

/** An RPC endpoint: http(s) only. Its path and query may hold an API key: never log them (chain/endpoints.ts). */
const rpcUrl = z
  .string()
  .url('must be an http(s) URL')
  .refine((u) => /^https?:\/\//i.test(u), 'must be an http(s) URL');

const pilotSchema = z.object({
  maker: address,
  taker: address,
  feeWallet: address,
  strategyHash: z.string().regex(/^0x[0-9a-fA-F]{64}$/),
});

export const chainConfigSchema = z.object({
  key: z
    .string()
    .regex(CHAIN_KEY_SHAPE, 'a chain key is a letter, then letters, digits, - or _ (at most 64)'),
  chainId: z.number().int().positive(),
  name: z.string().optional(),
  /** The first RPC endpoint; `fallbackRpcUrls` are tried in order when it fails (chain/transport.ts). */
  rpcUrl,
  fallbackRpcUrls: z.array(rpcUrl).optional(),
  aqua: address,
  router: address,
  /** Multicall3-compatible contract for batched reads. */
  multicall: address,
  feeReceiver: address,
  /** Test networks: only test keys may prepare on them. */
  testnet: z.boolean().default(false),
  tokens: z.array(tokenConfigSchema).min(1),
  /** Symbols POST /v1/positions accepts on this chain (SPEC §2.4); all listed tokens when absent. */
  depositSymbols: z.array(z.string().min(1)).optional(),
  /** First block the indexer reads. */
  startBlock: z.number().int().min(0).default(0),
  /**
   * Blocks behind the head the indexer stays on this chain; INDEXER_CONFIRMATIONS when absent. The
   * devnet's chains say 0; a real chain keeps the default, so most reorgs end before it indexes.
   */
  confirmations: z.number().int().min(0).max(1000).optional(),
  /** Demo wallets of the pilot (test network only). */
  pilot: pilotSchema.optional(),
  /**
   * The curves POST /v1/positions builds on this chain's router; all three when absent (the Aqua
   * router v1.0.1 runs them all). A router without an instruction of a kind lists the others.
   */
  strategyKinds: z.array(z.enum(STRATEGY_KINDS)).min(1).optional(),
});

export type ChainConfig = z.infer<typeof chainConfigSchema>;
export type TokenConfig = z.infer<typeof tokenConfigSchema>;

/** The devnet manifest: complete chain entries. */
export const chainsFileSchema = z.object({ chains: z.array(chainConfigSchema).min(1) });

/**
 * One entry of CHAINS_FILE: a key with a preset (chain/presets.ts) needs only its RPC URLs; every
 * other field overrides the preset's (tokens merge by symbol). Unknown fields are refused, so a typo
 * does not silently fall back to the preset.
 */
export const chainEntrySchema = z
  .object({
    key: z
      .string()
      .regex(CHAIN_KEY_SHAPE, 'a chain key is a letter, then letters, digits, - or _ (at most 64)'),
    rpcUrl: rpcUrl.optional(),
    rpcUrls: z.array(rpcUrl).min(1).optional(),
    fallbackRpcUrls: z.array(rpcUrl).optional(),
    chainId: z.number().int().positive().optional(),
    name: z.string().optional(),
    aqua: address.optional(),
    router: address.optional(),
    multicall: address.optional(),
    feeReceiver: address.optional(),
    testnet: z.boolean().optional(),
    tokens: z.array(tokenConfigSchema).optional(),
    depositSymbols: z.array(z.string().min(1)).optional(),
    startBlock: z.number().int().min(0).optional(),
    confirmations: z.number().int().min(0).max(1000).optional(),
    pilot: pilotSchema.optional(),
    strategyKinds: z.array(z.enum(STRATEGY_KINDS)).min(1).optional(),
  })
  .strict();

export type ChainEntry = z.infer<typeof chainEntrySchema>;

export const chainEntriesFileSchema = z.object({ chains: z.array(chainEntrySchema).min(1) }).strict();

/** `chains.0.aqua: …` for zod issues under `prefix`. */
function issuesText(issues: readonly z.core.$ZodIssue[], prefix: (string | number)[] = []): string {
  return issues.map((i) => `${[...prefix, ...i.path].join('.')}: ${i.message}`).join('; ');
}

/**
 * One CHAINS_FILE entry over its preset: the entry's fields win, tokens merge by symbol (the entry's
 * replace the preset's of the same symbol), `rpcUrls` is the first URL then its fallbacks. Throws a
 * message naming the entry, the field and whether a preset exists.
 */
export function resolveChainEntry(entry: ChainEntry, index = 0): ChainConfig {
  const where = `chains.${index} (key "${entry.key}")`;
  const preset = presetOf(entry.key);
  const { rpcUrls, tokens, ...fields } = entry;
  if (rpcUrls !== undefined && entry.rpcUrl !== undefined) {
    throw new Error(`${where}: give rpcUrl or rpcUrls, not both`);
  }
  const urls = [
    ...(rpcUrls ?? (entry.rpcUrl === undefined ? [] : [entry.rpcUrl])),
    ...(entry.fallbackRpcUrls ?? []),
  ];
  if (urls.length === 0) throw new Error(`${where}: rpcUrls: at least one RPC URL is required`);
  const merged = new Map<string, TokenConfig>();
  for (const token of preset?.tokens ?? []) merged.set(token.symbol.toUpperCase(), token);
  for (const token of tokens ?? []) {
    const symbol = token.symbol.toUpperCase();
    const presetUsd = merged.get(symbol)?.usd;
    // An entry's USDC at another address keeps the preset's price unless it gives a price of its own.
    const priced = token.usd !== undefined || token.usdFeed !== undefined;
    merged.set(symbol, !priced && presetUsd !== undefined ? { ...token, usd: presetUsd } : token);
  }
  const candidate = {
    ...(preset ? { ...preset, tokens: undefined } : {}),
    ...fields,
    rpcUrl: urls[0],
    fallbackRpcUrls: urls.length > 1 ? urls.slice(1) : undefined,
    tokens: [...merged.values()],
  };
  const parsed = chainConfigSchema.safeParse(candidate);
  if (!parsed.success) {
    const hint = preset
      ? `preset "${entry.key}" lacks or conflicts with it`
      : `no preset for key "${entry.key}" (presets: ${Object.keys(CHAIN_PRESETS).join(', ')}): give every field`;
    throw new Error(`${where}: ${issuesText(parsed.error.issues)} (${hint})`);
  }
  // Another chain id under a preset key must not inherit the preset's contracts unnoticed.
  if (preset && entry.chainId !== undefined && entry.chainId !== preset.chainId) {
    if (entry.aqua === undefined || entry.router === undefined || entry.tokens === undefined) {
      throw new Error(
        `${where}: chainId ${entry.chainId} is not the preset's ${preset.chainId}: give aqua, router and tokens too`,
      );
    }
  }
  return parsed.data;
}

/** Reads and validates a chains file (CHAINS_FILE, or the devnet manifest), entries over their presets. */
export function readChainsFile(path: string): ChainConfig[] {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`invalid chains file ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const parsed = chainEntriesFileSchema.safeParse(raw);
  if (!parsed.success) throw new Error(`invalid chains file ${path}: ${issuesText(parsed.error.issues)}`);
  try {
    return parsed.data.chains.map((entry, i) => resolveChainEntry(entry, i));
  } catch (error) {
    throw new Error(`invalid chains file ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
