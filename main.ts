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
  { url: service.url, publicUrl, urls, chains: service.services.registry.list().map((c) => c.key) },
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
if (config.internalTokenGenerated) {
  // Printed once, on stdout only: the operator needs it for /graphql and it is never logged.
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
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
