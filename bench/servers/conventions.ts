/**
 * The gateway with one extra fixed-body route behind the real conventions (request id, the rate
 * limiter with its headers, the error handler). The bench counts every request against a bucket whose
 * limit is never reached, so the limiter does its full work without answering 429.
 *   node --import tsx bench/servers/conventions.ts <port> <bodyFile>
 */
import { readFileSync } from 'node:fs';
import { loadConfig } from '../../lib/config.js';
import { createLogger } from '../../lib/logger.js';
import { startService } from '../../service.js';

const [portText, bodyFile] = process.argv.slice(2);
const body = readFileSync(bodyFile!, 'utf8');
const config = loadConfig({ ...process.env, PORT: portText!, LOG_LEVEL: 'warn', INDEXER: 'off' });
const service = await startService(config, {
  chains: [],
  logger: createLogger('warn'),
  extraRoutes: [
    {
      method: 'GET',
      path: '/bench/fixed',
      bucket: 'stats',
      limit: 1_000_000_000,
      handle: async () => ({ body }),
    },
  ],
});
process.stdout.write('ready\n');
process.on('SIGTERM', () => service.stop().then(() => process.exit(0)));
