import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type Logger, pino } from 'pino';
import { type ChainConfig, chainsFileSchema } from '../lib/chains.js';
import { type PartStatus, type Supervised, supervise } from '../lib/supervisor.js';
import type { Anvil } from './anvil.js';
import { startActivityBot } from './bot.js';
import { DEVNET_CHAINS, type DevnetChainSpec } from './chains.js';
import {
  contractsDigest,
  contractsDigestPath,
  type LaunchedChain,
  launchChain,
  readSavedChains,
  restoreChain,
  startChainAnvil,
} from './persist.js';
import { type SeededChain, type SeedProgress, seedChain } from './seed.js';

export interface StartDevnetOptions {
  /** Port of the first chain (base); arc and baseSepolia use the next two. */
  basePort: number;
  /** The manifest is written to `${dataDir}/devnet/manifest.json`. */
  dataDir: string;
  /** Milliseconds between the activity bot's ticks. */
  activityMs: number;
  logger?: Logger;
  /** Told every change of an anvil's supervision state (devnet/main.ts passes them to its parent). */
  onPartState?(status: PartStatus): void;
  /**
   * Told each step of the start as it completes (each chain started, deployed, its makers seeded n/N,
   * its swaps and docks, or restored from its saved state): devnet/main.ts passes them to its parent,
   * which logs them. Without it they are logged here, at info.
   */
  onProgress?: SeedProgress;
}

export interface Devnet {
  chains: ChainConfig[];
  manifestPath: string;
  /** The supervised parts (each anvil; a devnet in a child process, that process too). */
  parts?(): PartStatus[];
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
  const progress: SeedProgress = options.onProgress ?? ((msg, fields) => logger.info(fields, msg));
  const started = performance.now();
  const anvils: Anvil[] = [];
  const stopAnvils = () => Promise.allSettled(anvils.map((a) => a.stop())).then(() => undefined);

  let seeded: SeededChain[];
  try {
    // A chain whose state the previous run left (devnet/persist.ts) is restored, not seeded again.
    const savedChains = readSavedChains(manifestPathOf(options.dataDir));
    const launches = await Promise.allSettled(
      DEVNET_CHAINS.map(async (spec) => {
        const launch = await launchChain(
          spec,
          options.basePort + spec.portOffset,
          options.dataDir,
          savedChains,
          logger,
        );
        progress('devnet chain started', {
          chain: spec.key,
          rpcUrl: launch.anvil.rpcUrl,
          savedState: launch.saved !== null,
        });
        return launch;
      }),
    );
    for (const launch of launches) if (launch.status === 'fulfilled') anvils.push(launch.value.anvil);
    const failed = launches.find((l): l is PromiseRejectedResult => l.status === 'rejected');
    if (failed) throw failed.reason;
    const launched = launches.map((l) => (l as PromiseFulfilledResult<LaunchedChain>).value);
    const anvilsReady = performance.now();
    seeded = await Promise.all(
      DEVNET_CHAINS.map((spec, i) => {
        const { anvil, saved } = launched[i]!;
        return saved
          ? restoreChain(spec, anvil.rpcUrl, saved, progress)
          : seedChain(spec, anvil.rpcUrl, progress);
      }),
    );
    progress('devnet chains deployed and seeded', {
      anvilMs: Math.round(anvilsReady - started),
      seedMs: Math.round(performance.now() - anvilsReady),
      chains: Object.fromEntries(seeded.map((c) => [c.spec.key, { ...c.counts, live: c.live.length }])),
      restored: launched.filter((l) => l.saved).length,
    });
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

  let bot = startActivityBot(seeded, options.activityMs, logger);
  let stopped = false;
  // Seeding needs the chain's accounts to itself (the bot's sends would take the nonces it counts on):
  // the bot stops meanwhile, and seedings run one at a time.
  let seeding: Promise<unknown> = Promise.resolve();
  const seedAgain = (spec: DevnetChainSpec, i: number, rpcUrl: string): Promise<void> => {
    const run = seeding.then(async () => {
      await bot.stop();
      try {
        const again = await seedChain(spec, rpcUrl, progress);
        if (JSON.stringify(again.config) !== JSON.stringify(seeded[i]!.config))
          logger.error({ chain: spec.key }, 'devnet chain seeded again at other addresses: manifest stale');
        seeded[i] = again;
      } finally {
        if (!stopped) bot = startActivityBot(seeded, options.activityMs, logger);
      }
    });
    seeding = run.catch(() => {});
    return run;
  };
  // Each anvil that dies is started again on its port, from its state file (devnet/persist.ts: what was
  // last saved, at most STATE_INTERVAL_MS old; one that cannot be loaded is set aside). A chain that
  // comes back without our contracts (no state to load) is deployed and seeded again (the same
  // addresses, since the deployer's nonces are the same), and the bot works on the new chain.
  const restartChain = async (spec: DevnetChainSpec, i: number): Promise<Anvil> => {
    const { anvil } = await startChainAnvil(
      spec,
      options.basePort + spec.portOffset,
      options.dataDir,
      logger,
    );
    try {
      if (!(await hasCode(anvil.rpcUrl, seeded[i]!.config.aqua))) {
        await seedAgain(spec, i, anvil.rpcUrl);
        logger.info({ chain: spec.key }, 'devnet chain restarted empty: deployed and seeded again');
      }
    } catch (error) {
      await anvil.stop();
      throw error;
    }
    return anvil;
  };
  const supervisors: Supervised<Anvil>[] = await Promise.all(
    DEVNET_CHAINS.map((spec, i) =>
      supervise<Anvil>({
        name: `anvil ${spec.key}`,
        logger,
        initial: anvils[i]!,
        start: () => restartChain(spec, i),
        exited: (anvil) => pidGone(anvil.pid),
        stop: (anvil) => anvil.stop(),
        onChange: options.onPartState,
      }),
    ),
  );
  logger.info(
    { manifestPath, ms: Math.round(performance.now() - started), rpc: chains.map((c) => c.rpcUrl) },
    'devnet ready',
  );

  let stopping: Promise<void> | undefined;
  return {
    chains,
    manifestPath,
    parts: () => supervisors.map((s) => s.status()),
    stop() {
      stopping ??= (async () => {
        stopped = true;
        await bot.stop();
        // Supervision stops before the anvils do: an anvil stopped on purpose is not restarted.
        await Promise.allSettled(supervisors.map((s) => s.stop()));
        await stopAnvils();
        logger.info('devnet stopped');
      })();
      return stopping;
    },
  };
}

/** Resolves once no process has this pid any more (node reaps its children as they exit). */
function pidGone(pid: number): Promise<string> {
  return new Promise((resolve) => {
    const timer = setInterval(() => {
      try {
        process.kill(pid, 0);
      } catch {
        clearInterval(timer);
        resolve(`anvil (pid ${pid}) ended`);
      }
    }, 200);
    timer.unref();
  });
}

/** Whether the contract exists on the chain (a restarted anvil that kept its state has it). */
async function hasCode(rpcUrl: string, address: string): Promise<boolean> {
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getCode', params: [address, 'latest'] }),
    signal: AbortSignal.timeout(3000),
  });
  const body = (await res.json()) as { result?: string };
  return typeof body.result === 'string' && body.result !== '0x';
}

/** Validated against the chains-file schema, written atomically (a reader never sees half a file). */
async function writeManifest(file: string, chains: ChainConfig[]): Promise<void> {
  const manifest = chainsFileSchema.parse({ chains });
  await mkdir(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(manifest, null, 2)}\n`);
  await rename(temporary, file);
  // Which contracts the saved chains run (readSavedChains restores only the same ones).
  await writeFile(contractsDigestPath(file), `${contractsDigest()}\n`);
}
