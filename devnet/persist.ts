/**
 * The devnet keeps its chains across restarts: each anvil's state lives in a file under
 * `${DATA_DIR}/devnet/` (loaded at start when present, saved atomically every few seconds and on stop:
 * devnet/stateFile.ts), and a chain whose state file and manifest entry both exist is restored instead
 * of deployed and seeded again. Its blocks, genesis included, stay the same, so the indexer keeps its
 * checkpoint and a filled position stays filled.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { type Address, getAddress } from 'viem';
import { getCode } from 'viem/actions';
import { type ChainConfig, readChainsFile } from '../lib/chains.js';
import { type Anvil, startAnvil } from './anvil.js';
import { artifacts } from './artifacts.js';
import { type DevnetChainSpec, rolesOf } from './chains.js';
import { discoverStrategies, largestSalt } from './discover.js';
import { type SeededChain, type SeedProgress, seedChain } from './seed.js';
import { seededRandom } from './strategies.js';
import { devnetRpc } from './wallet.js';

/** Milliseconds between saves of a chain's state (besides the one on stop): what a crash can lose at most. */
export const STATE_INTERVAL_MS = 5_000;

export function stateFileOf(dataDir: string, key: string): string {
  return path.resolve(dataDir, 'devnet', `anvil-${key}.json`);
}

/**
 * What the contracts are: the digest of their compiled bytecode. A state saved by a run of other
 * contracts (an older router, say) is not restored: its chains would still run the old code.
 */
export function contractsDigest(): string {
  const hash = createHash('sha256');
  for (const [name, artifact] of Object.entries(artifacts)) hash.update(`${name}:${artifact.bytecode}\n`);
  return hash.digest('hex');
}

/** The digest file written beside the manifest. */
export function contractsDigestPath(manifestPath: string): string {
  return path.join(path.dirname(manifestPath), 'contracts.sha256');
}

/**
 * The chains of the manifest a previous run wrote, or none when it is missing or unreadable, or when
 * that run deployed other contracts than these (the chains then start afresh and are seeded again).
 */
export function readSavedChains(manifestPath: string): ChainConfig[] {
  try {
    if (!existsSync(manifestPath)) return [];
    const digest = contractsDigestPath(manifestPath);
    if (!existsSync(digest) || readFileSync(digest, 'utf8').trim() !== contractsDigest()) return [];
    return readChainsFile(manifestPath);
  } catch {
    return [];
  }
}

export interface LaunchedChain {
  anvil: Anvil;
  /** The previous run's configuration of this chain when its state was loaded; null on a fresh chain. */
  saved: ChainConfig | null;
}

/**
 * Starts the anvil of one chain with its state file. The state is loaded only with the previous run's
 * manifest entry for the chain (else the file is removed first, so the chain starts empty).
 */
export async function launchChain(
  spec: DevnetChainSpec,
  port: number,
  dataDir: string,
  savedChains: readonly ChainConfig[],
  logger?: Logger,
): Promise<LaunchedChain> {
  const stateFile = stateFileOf(dataDir, spec.key);
  await mkdir(path.dirname(stateFile), { recursive: true });
  const saved = savedChains.find((c) => c.key === spec.key && c.chainId === spec.chainId) ?? null;
  if (!saved) await rm(stateFile, { force: true });
  const { anvil, loaded } = await startChainAnvil(spec, port, dataDir, logger);
  return { anvil, saved: loaded ? saved : null };
}

/**
 * Starts the anvil of one chain on its state file, when there is one. A state anvil cannot load is set
 * aside as `<file>.unreadable` with one log line, and the chain starts afresh (`loaded` false).
 */
export async function startChainAnvil(
  spec: DevnetChainSpec,
  port: number,
  dataDir: string,
  logger?: Logger,
): Promise<{ anvil: Anvil; loaded: boolean }> {
  const stateFile = stateFileOf(dataDir, spec.key);
  const options = {
    port,
    chainId: spec.chainId,
    stateFile,
    stateIntervalMs: STATE_INTERVAL_MS,
    onStateSaved: (error?: Error) => {
      if (error) logger?.warn({ chain: spec.key, err: error.message }, 'devnet state not saved');
    },
  };
  if (existsSync(stateFile)) {
    try {
      return { anvil: await startAnvil(options), loaded: true };
    } catch (error) {
      // Only a state anvil cannot load is set aside; a busy port is not the state's fault.
      if (error instanceof Error && /already in use/.test(error.message)) throw error;
      logger?.error(
        {
          chain: spec.key,
          err: error instanceof Error ? error.message.split('\n')[0] : String(error),
          stateFile,
        },
        'devnet state not loadable: set aside, starting the chain afresh',
      );
      await rename(stateFile, `${stateFile}.unreadable`);
    }
  }
  return { anvil: await startAnvil(options), loaded: false };
}

/**
 * A chain whose state was loaded: addresses from the previous manifest (the RPC URL from this run),
 * roles from anvil's accounts, live strategies from Aqua's logs. Falls back to deploying and seeding
 * when the saved contracts are not on the chain (a state file older than its manifest).
 */
export async function restoreChain(
  spec: DevnetChainSpec,
  rpcUrl: string,
  saved: ChainConfig,
  progress?: SeedProgress,
): Promise<SeededChain> {
  const rpc = devnetRpc(rpcUrl);
  const [aquaCode, routerCode] = await Promise.all(
    [saved.aqua, saved.router].map((address) => getCode(rpc, { address: address as Address })),
  );
  if (!aquaCode || aquaCode === '0x' || !routerCode || routerCode === '0x')
    return seedChain(spec, rpcUrl, progress);

  const accounts = (await rpc.request({ method: 'eth_accounts' })) as Address[];
  const roles = rolesOf(accounts);
  const tokens = Object.fromEntries(saved.tokens.map((t) => [t.symbol, getAddress(t.address)]));
  const chain: SeededChain = {
    spec,
    config: { ...saved, rpcUrl },
    rpc,
    roles,
    tokens,
    live: [],
    pilotStrategy: undefined,
    random: seededRandom(spec.chainId ^ (Date.now() % 2 ** 31)),
    nextSalt: () => 0n,
    counts: { shipped: 0, docked: 0, swaps: 0, transactions: 0 },
    scannedTo: 0n,
  };
  await discoverStrategies(chain);
  chain.pilotStrategy = chain.live.find((s) => s.pilot);
  let salt = largestSalt(chain.live.filter((s) => roles.makers.includes(s.maker)));
  const floor = BigInt(spec.chainId) << 32n;
  if (salt < floor) salt = floor;
  // Docked strategies left the live list: step well past any salt the previous run could have used.
  salt += 1n << 20n;
  chain.nextSalt = () => ++salt;
  progress?.('devnet chain restored', { chain: spec.key, live: chain.live.length });
  return chain;
}
