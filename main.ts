import { loadConfig } from './lib/config.js';
import { createLogger } from './lib/logger.js';
import { startService } from './service.js';
import { leaveEmbeddedShutdownToCaller } from './store/embedded.js';

const config = loadConfig();
const logger = createLogger(config.logLevel);
const service = await startService(config, { logger }).catch((error: unknown) => {
  // A start that cannot finish (store unreachable, a changed migration, a port taken) says why, once.
  logger.fatal({ err: error }, 'gateway failed to start');
  process.exit(1);
});
logger.info(
  { url: service.url, chains: service.services.registry.list().map((c) => c.key) },
  'gateway ready',
);
if (config.internalTokenGenerated) {
  // Printed once, on stdout only: the operator needs it for /graphql and it is never logged.
  process.stdout.write(
    `INTERNAL_TOKEN (generated for this run; set INTERNAL_TOKEN to fix it): ${config.internalToken}\n`,
  );
}

// On a signal the service stops what it started, in reverse order: HTTP drained first, Postgres last.
leaveEmbeddedShutdownToCaller();
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    service.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
