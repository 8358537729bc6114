/**
 * The gateway for the catalogue benches, in a process of its own, against DATABASE_URL (the parent
 * prepared the rows), with the three fixture chains of the tests and no indexer. The benched paths keep their
 * real rate limiter with a limit the load never reaches (the limiter still does its full work).
 *   node --import tsx bench/servers/catalogue.ts <port> <path>[,<path>…]
 */
import { loadConfig } from '../../lib/config.js';
import { createLogger } from '../../lib/logger.js';
import { routes } from '../../rest/routes/index.js';
import { startService } from '../../service.js';
import { fixtureChains } from '../../test/helpers/catalogue.js';

const [portText, paths] = process.argv.slice(2);
const benched = new Set((paths ?? '').split(','));
for (const route of routes) if (benched.has(route.path)) route.limit = 1_000_000_000;
// BENCH_LOG_LEVEL: info where a bench measures what is logged per request (bench/extras.ts).
const config = loadConfig({
  ...process.env,
  PORT: portText!,
  LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
  INDEXER: 'off',
});
const service = await startService(config, {
  chains: fixtureChains(3),
  logger: createLogger(config.logLevel),
});
process.stdout.write('ready\n');
process.on('SIGTERM', () => service.stop().then(() => process.exit(0)));
