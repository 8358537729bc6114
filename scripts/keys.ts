/**
 * Key administration for operators without GraphQL:
 *   npm run keys -- create --env test|live [--scopes prepare] [--origins https://a,https://b] [--label x] [--limit 6]
 *   npm run keys -- list
 *   npm run keys -- revoke <keyId>
 * Talks to DATABASE_URL (or the embedded store under DATA_DIR when unset).
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../lib/config.js';
import { createLogger } from '../lib/logger.js';
import { createKey, type KeyEnvironment, listKeys, revokeKey } from '../resolvers/apiKeys.js';
import { createDb } from '../store/db.js';
import { startEmbeddedPostgres } from '../store/embedded.js';
import { migrate } from '../store/migrate.js';

const USAGE = `usage:
  npm run keys -- create --env test|live [--scopes prepare] [--origins https://a.example,https://b.example] [--label text] [--limit 6]
  npm run keys -- list
  npm run keys -- revoke <keyId>`;

async function main(): Promise<number> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      env: { type: 'string' },
      scopes: { type: 'string' },
      origins: { type: 'string' },
      label: { type: 'string' },
      limit: { type: 'string' },
    },
  });
  const [command, arg] = positionals;
  if (!command || !['create', 'list', 'revoke'].includes(command)) {
    console.error(USAGE);
    return 2;
  }
  const config = loadConfig();
  const logger = createLogger('warn', 'keys');
  const embedded = config.databaseUrl
    ? null
    : await startEmbeddedPostgres({ dataDir: config.dataDir, logger });
  const db = createDb(config.databaseUrl ?? embedded!.url, 2);
  try {
    await migrate(db);
    if (command === 'create') {
      if (values.env !== 'test' && values.env !== 'live') {
        console.error('--env must be test or live');
        return 2;
      }
      const split = (s: string | undefined) =>
        s
          ?.split(',')
          .map((x) => x.trim())
          .filter(Boolean);
      const created = await createKey(db, {
        environment: values.env as KeyEnvironment,
        scopes: split(values.scopes) ?? null,
        origins: split(values.origins) ?? null,
        label: values.label ?? null,
        prepareLimitPerMinute: values.limit === undefined ? null : Number(values.limit),
      });
      console.log(JSON.stringify(created, null, 2));
      console.error('The key is shown once: store it server-side now.');
    } else if (command === 'list') {
      for (const k of await listKeys(db)) {
        console.log(
          [
            k.key_id,
            k.environment,
            k.scopes.join(','),
            k.revoked_at ? 'revoked' : 'active',
            k.label ?? '',
          ].join('\t'),
        );
      }
    } else {
      if (!arg) {
        console.error(USAGE);
        return 2;
      }
      console.log((await revokeKey(db, arg)) ? `revoked ${arg}` : `no active key ${arg}`);
    }
    return 0;
  } catch (error) {
    console.error((error as Error).message);
    return 1;
  } finally {
    await db.end();
    await embedded?.stop();
  }
}

process.exitCode = await main();
