import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type Logger, pino } from 'pino';
import { type ChainConfig, chainsFileSchema } from '../lib/config.js';
import type { Anvil } from './anvil.js';
import { startActivityBot } from './bot.js';
import { type LaunchedChain, launchChain, readSavedChains, restoreChain } from './persist.js';
import { DEVNET_CHAINS, type SeededChain, seedChain } from './seed.js';

export interface StartDevnetOptions {
  /** Port of the first chain (base); arc and baseSepolia use the next two. */
  basePort: number;
  /** The manifest is written to `${dataDir}/devnet/manifest.json`. */
  dataDir: string;
  /** Milliseconds between the activity bot's ticks. */
  activityMs: number;
  logger?: Logger;
}

export interface Devnet {
  chains: ChainConfig[];
  manifestPath: string;
  /** Stops the activity bot, then every anvil. */
  stop(): Promise<void>;
}

export function manifestPathOf(dataDir: string): string {
  return path.resolve(dataDir, 'devnet', 'manifest.json');
}

/**
 * Starts the three local chains (in parallel), deploys our contracts, seeds makers, strategies, swaps
 * and docks, writes the manifest (the `chainsFileSchema` shape) and starts the activity bot. Resolves
 * when every chain has live strategies and swaps. Devnet tooling only: the service never signs.
 */
export async function startDevnet(options: StartDevnetOptions): Promise<Devnet> {
  const logger = options.logger ?? pino({ level: 'silent' });
  const started = performance.now();
  const anvils: Anvil[] = [];
  const stopAnvils = () => Promise.allSettled(anvils.map((a) => a.stop())).then(() => undefined);

  let seeded: SeededChain[];
  // A chain whose state the previous run left (devnet/persist.ts) is restored, not seeded again.
  const savedChains = readSavedChains(manifestPathOf(options.dataDir));
  try {
    const launches = await Promise.allSettled(
      DEVNET_CHAINS.map((spec) =>
        launchChain(spec, options.basePort + spec.portOffset, options.dataDir, savedChains, logger),
      ),
    );
    for (const launch of launches) if (launch.status === 'fulfilled') anvils.push(launch.value.anvil);
    const failed = launches.find((l): l is PromiseRejectedResult => l.status === 'rejected');
    if (failed) throw failed.reason;
    const launched = launches.map((l) => (l as PromiseFulfilledResult<LaunchedChain>).value);
    const anvilsReady = performance.now();
    seeded = await Promise.all(
      DEVNET_CHAINS.map((spec, i) => {
        const { anvil, saved } = launched[i]!;
        return saved ? restoreChain(spec, anvil.rpcUrl, saved) : seedChain(spec, anvil.rpcUrl);
      }),
    );
    logger.info(
      {
        anvilMs: Math.round(anvilsReady - started),
        seedMs: Math.round(performance.now() - anvilsReady),
        chains: Object.fromEntries(seeded.map((c) => [c.spec.key, { ...c.counts, live: c.live.length }])),
        restored: launched.filter((l) => l.saved).length,
      },
      'devnet chains deployed and seeded',
    );
  } catch (error) {
    await stopAnvils();
    throw error;
  }

  const chains = seeded.map((c) => c.config);
  const manifestPath = manifestPathOf(options.dataDir);
  try {
    await writeManifest(manifestPath, chains);
  } catch (error) {
    await stopAnvils();
    throw error;
  }

  const bot = startActivityBot(seeded, options.activityMs, logger);
  logger.info(
    { manifestPath, ms: Math.round(performance.now() - started), rpc: chains.map((c) => c.rpcUrl) },
    'devnet ready',
  );

  let stopping: Promise<void> | undefined;
  return {
    chains,
    manifestPath,
    stop() {
      stopping ??= (async () => {
        await bot.stop();
        await stopAnvils();
        logger.info('devnet stopped');
      })();
      return stopping;
    },
  };
}

/** Validated against the chains-file schema, written atomically (a reader never sees half a file). */
async function writeManifest(file: string, chains: ChainConfig[]): Promise<void> {
  const manifest = chainsFileSchema.parse({ chains });
  await mkdir(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(manifest, null, 2)}\n`);
  await rename(temporary, file);
}
