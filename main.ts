import { mkdir, open, rename, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { loadConfig } from './lib/config.js';
import { createLogger } from './lib/logger.js';
import { startService } from './service.js';
import { leaveEmbeddedShutdownToCaller } from './store/embedded.js';

const config = loadConfig();
const logger = createLogger(config.logLevel);
// A generated INTERNAL_TOKEN is shown to a person at a terminal (after the banner) and otherwise written
// to a file only the service's user reads: stdout is then the JSON log stream a collector parses and keeps.
const tokenOnTerminal = config.internalTokenGenerated && process.stdout.isTTY === true;
let internalTokenFile: string | undefined;
if (config.internalTokenGenerated && !tokenOnTerminal) {
  internalTokenFile = await writeTokenFile(config.dataDir, config.internalToken).catch((error: unknown) => {
    logger.fatal(
      { err: error, dataDir: resolve(config.dataDir) },
      'gateway failed to start: the generated INTERNAL_TOKEN cannot be written under DATA_DIR (set INTERNAL_TOKEN)',
    );
    process.exit(1);
  });
  logger.info(
    { internalTokenFile },
    'INTERNAL_TOKEN generated for this run: in internalTokenFile (mode 600); set INTERNAL_TOKEN to fix it',
  );
}
const service = await startService(config, { logger }).catch((error: unknown) => {
  // A start that cannot finish (store unreachable, a changed migration, a port taken) says why, once.
  logger.fatal({ err: error }, 'gateway failed to start');
  process.exit(1);
});
const { publicUrl, metricsToken } = service.services.config;
const urls = {
  api: `${service.url}/api`,
  demo: `${service.url}/demo`,
  docs: `${service.url}/docs`,
  openapi: `${service.url}/openapi.json`,
  llms: `${service.url}/llms.txt`,
  metrics: metricsToken ? `${service.url}/metrics` : null,
};
logger.info(
  {
    url: service.url,
    publicUrl,
    urls,
    chains: service.services.registry.list().map((c) => c.key),
    ...(internalTokenFile ? { internalTokenFile } : {}),
  },
  'gateway ready',
);
if (process.stdout.isTTY) {
  // The start banner, for a person at a terminal (a log collector has the same URLs in the line above).
  const lines = [
    `Liquidity catalogue gateway ready on ${service.url}${publicUrl === service.url ? '' : ` (public: ${publicUrl})`}`,
    `  API         ${urls.api}/stats, ${urls.api}/strategies, … (no key for reads)`,
    `  Demo        ${urls.demo}`,
    `  Docs        ${urls.docs}`,
    `  OpenAPI     ${urls.openapi}`,
    `  llms.txt    ${urls.llms}`,
    `  Metrics     ${urls.metrics ? `${urls.metrics} (Authorization: Bearer $METRICS_TOKEN)` : 'off (set METRICS_TOKEN to serve /metrics)'}`,
  ];
  process.stdout.write(`\n${lines.join('\n')}\n\n`);
}
if (tokenOnTerminal) {
  // Printed once, to the terminal only: the operator needs it for /graphql and it is never logged.
  process.stdout.write(
    `INTERNAL_TOKEN (generated for this run; set INTERNAL_TOKEN to fix it): ${config.internalToken}\n`,
  );
}

// On a signal the service stops what it started, in reverse order: HTTP drained first, Postgres last.
leaveEmbeddedShutdownToCaller();
// SIGTERM (an orchestrator) first turns readiness to 503 and keeps serving for SHUTDOWN_GRACE_MS, so the
// load balancer stops sending before the listener closes; SIGINT (a person at a terminal) stops at once,
// and so does a second signal during the grace.
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) {
      service.endGrace();
      return;
    }
    stopping = true;
    const graceMs = signal === 'SIGTERM' ? config.shutdownGraceMs : 0;
    logger.info({ signal, graceMs }, 'stopping');
    service.stop({ graceMs }).then(
      async () => {
        // The token file names a token no service accepts any more.
        if (internalTokenFile) await rm(internalTokenFile, { force: true }).catch(() => {});
        process.exit(0);
      },
      () => process.exit(1),
    );
  });
}

/**
 * Writes the generated token to `DATA_DIR/internal-token`, readable and writable by this user only (600):
 * into a new file created with that mode, then renamed over the last run's, so no reader ever sees a
 * partial token or one readable by others. Returns the file's absolute path.
 */
async function writeTokenFile(dataDir: string, token: string): Promise<string> {
  const dir = resolve(dataDir);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, 'internal-token');
  const temporary = `${file}.${process.pid}.tmp`;
  await rm(temporary, { force: true });
  const handle = await open(temporary, 'wx', 0o600);
  try {
    await handle.writeFile(token);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temporary, file);
  return file;
}
