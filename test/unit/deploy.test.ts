import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../../lib/config.js';

/**
 * The deployment files: the image, its build context and docker-compose.yml with the reverse
 * proxy in front. No Docker engine runs here, so these are the facts read from the files themselves;
 * `docker compose config` (or docker-compose 1.29's) validates the compose file where it is installed.
 */

const dockerfile = readFileSync('Dockerfile', 'utf8');
/** Instructions, with continuation lines joined and comments dropped. */
const instructions = dockerfile
  .replace(/\\\n\s*/g, ' ')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l !== '' && !l.startsWith('#'));
const stages = instructions.reduce<string[][]>((all, line) => {
  if (/^FROM\s/i.test(line)) all.push([line]);
  else if (all.length > 0) all[all.length - 1]!.push(line);
  return all;
}, []);

interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string[];
  ports?: unknown[];
  /** A null value: passed from the environment compose runs in when set there, else absent. */
  environment?: Record<string, string | null>;
  healthcheck?: { disable?: boolean; test?: string[] };
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
}
interface Compose {
  services: Record<string, ComposeService>;
}
const composeText = readFileSync('docker-compose.yml', 'utf8');
const compose = parse(composeText, { merge: true }) as Compose;

/** An image reference pinned by digest: `name:tag@sha256:<64 hex>`. */
const PINNED = /^[\w./-]+:[\w.-]+@sha256:[0-9a-f]{64}$/;

/**
 * Compose's interpolation of the file's text (what `docker compose config` does first): `$$`, `$VAR`,
 * `${VAR}`, `${VAR:-default}`, `${VAR-default}`, and `${VAR:?message}` / `${VAR?message}`, which stop
 * compose with the message when VAR is unset (or, with the colon, empty).
 */
function interpolate(text: string, env: Record<string, string>): string {
  return text.replace(
    /\$\$|\$\{([A-Za-z_]\w*)(?:(:?)([-?])([^}]*))?\}|\$([A-Za-z_]\w*)/g,
    (whole, braced?: string, colon?: string, kind?: string, arg?: string, bare?: string) => {
      if (whole === '$$') return '$';
      const name = (braced ?? bare)!;
      const value = env[name];
      const missing = colon ? !value : value === undefined;
      if (kind === '?' && missing) throw new Error(`required variable ${name} is missing a value: ${arg}`);
      if (kind === '-' && missing) return arg!;
      return value ?? '';
    },
  );
}

/** The file as compose runs it with `env` (its shell and .env): interpolated, null values resolved. */
function composeWith(env: Record<string, string>): Compose {
  const resolved = parse(interpolate(composeText, env), { merge: true }) as Compose;
  for (const service of Object.values(resolved.services)) {
    for (const [name, value] of Object.entries(service.environment ?? {})) {
      if (value !== null) continue;
      if (env[name] === undefined) delete service.environment![name];
      else service.environment![name] = env[name]!;
    }
  }
  return resolved;
}

/** .env.example's lines: each variable, whether it is set (uncommented) and the command said to make it. */
const envExample = readFileSync('.env.example', 'utf8');
const examples = (() => {
  const found: Array<{ name: string; value: string; commented: boolean; make?: string }> = [];
  let make: string | undefined;
  for (const line of envExample.split('\n')) {
    const command = /^#\s+(openssl rand .+)$/.exec(line);
    if (command) make = command[1];
    const variable = /^(#\s*)?([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    if (variable) {
      found.push({ name: variable[2]!, value: variable[3]!, commented: Boolean(variable[1]), make });
      make = undefined;
    }
    if (line.trim() === '') make = undefined;
  }
  return found;
})();

/** A value made as .env.example says (`openssl rand -hex N`: N random bytes in hex). */
function made(make: string | undefined): string {
  const bytes = /^openssl rand -hex (\d+)$/.exec(make ?? '');
  if (!bytes) throw new Error(`no generation command understood: ${make}`);
  return randomBytes(Number(bytes[1])).toString('hex');
}

/**
 * Every variable of the config's schema (lib/config.ts) that holds a secret, by its name: `…_TOKEN`,
 * `…_SECRET`, `…_PASSWORD`, `…_SECRET(S)_KEY`. A new one the config reads is held to the same rules.
 */
const configSecrets = (() => {
  const source = readFileSync('lib/config.ts', 'utf8');
  const start = source.indexOf('const envSchema = z.object({');
  const schema = source.slice(start, source.indexOf('\n});', start));
  return [...schema.matchAll(/^ {2}([A-Z][A-Z0-9_]*):/gm)]
    .map((m) => m[1]!)
    .filter((name) => /_(TOKEN|SECRET|PASSWORD)$|_SECRETS?_KEY$/.test(name));
})();

describe('the Dockerfile', () => {
  it('is multi-stage on a current Node LTS image (22 or 24, not the ended 20), pinned by digest', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const image = /^ARG NODE_IMAGE=(\S+)$/m.exec(dockerfile)?.[1] ?? '';
    expect(image).toMatch(/^node:(22|24)[.\w-]*@sha256:[0-9a-f]{64}$/);
    for (const stage of stages) expect(stage[0]).toMatch(/^FROM \$\{NODE_IMAGE\} AS \w+$/);
  });

  it('installs the production dependencies only in the runtime stage, exactly (npm ci)', () => {
    const runtime = stages.at(-1)!.join('\n');
    expect(runtime).toMatch(/^RUN npm ci --omit=dev\b/m);
    // The build stage's own node_modules (dev dependencies) never reach the runtime.
    expect(stages[0]!.join('\n')).toMatch(/rm -rf node_modules/);
  });

  it('runs as a non-root user and checks /healthz', () => {
    const runtime = stages.at(-1)!;
    const user = runtime.filter((l) => /^USER\s/.test(l)).at(-1);
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^USER\s+(root|0)(:|$)/);
    const check = runtime.find((l) => /^HEALTHCHECK\s/.test(l));
    expect(check).toMatch(/\/healthz/);
    expect(check).toMatch(/CMD \[/);
  });
});

describe('.dockerignore', () => {
  it('keeps dependencies, data and secrets out of the build context', () => {
    const ignored = readFileSync('.dockerignore', 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    for (const entry of ['node_modules', '.data', '.env', '.env.*', '.git']) expect(ignored).toContain(entry);
  });
});

describe('docker-compose.yml', () => {
  const { services } = compose;

  it('publishes the reverse proxy only; the replicas that trust X-Forwarded-For are not reachable', () => {
    const published = Object.entries(services)
      .filter(([, s]) => (s.ports ?? []).length > 0)
      .map(([name]) => name);
    expect(published).toEqual(['proxy']);
    expect(services.proxy!.image).toMatch(/^(caddy|nginx|traefik)(:|$)/);
    expect(services.gateway!.environment!.TRUST_PROXY).toBe('1');
    expect(services.gateway!.environment!.INDEXER).toBe('off');
  });

  it("mounts the proxy's config, which sets X-Forwarded-For itself and reaches every replica", () => {
    expect(services.proxy!.volumes).toContain('./deploy/Caddyfile:/etc/caddy/Caddyfile:ro');
    const caddyfile = readFileSync('deploy/Caddyfile', 'utf8');
    expect(caddyfile).toMatch(/^\s*header_up X-Forwarded-For \{remote_host\}$/m);
    expect(caddyfile).toMatch(/^\s*dynamic a gateway 8080\b/m);
    expect(services.proxy!.depends_on?.gateway?.condition).toBe('service_healthy');
  });

  it('pins every image it pulls by digest; the two it builds are the one image of the Dockerfile', () => {
    for (const [name, service] of Object.entries(services)) {
      if (service.build !== undefined) expect(service.image, name).toBe('liquidity-gateway:local');
      else expect(service.image, name).toMatch(PINNED);
    }
  });

  it("starts the proxy on the replicas' readiness (/readyz), and the replicas on a healthy store and Redis", () => {
    const check = services.gateway!.healthcheck!.test!.join(' ');
    expect(check).toMatch(/\/readyz\b/);
    expect(check).not.toMatch(/\/healthz\b/);
    expect(services.proxy!.depends_on?.gateway?.condition).toBe('service_healthy');
    expect(services.gateway!.depends_on?.postgres?.condition).toBe('service_healthy');
    expect(services.gateway!.depends_on?.redis?.condition).toBe('service_healthy');
    expect(services.redis!.healthcheck?.test).toBeDefined();
  });

  it('one image for the gateway and the indexer; the indexer (no HTTP) without the /healthz check', () => {
    expect(services.gateway!.build).toBe('.');
    expect(services.indexer!.image).toBe(services.gateway!.image);
    expect(services.indexer!.healthcheck?.disable).toBe(true);
    expect(services.indexer!.environment!.DATABASE_URL).toBe(services.gateway!.environment!.DATABASE_URL);
  });
});

describe('docker-compose.yml and .env.example: every secret from the environment', () => {
  it("wires every secret variable of the config's schema to the replicas from the environment", () => {
    expect(configSecrets).toEqual(
      expect.arrayContaining(['INTERNAL_TOKEN', 'ANALYTICS_TOKEN', 'METRICS_TOKEN', 'WEBHOOK_SECRETS_KEY']),
    );
    const environment = compose.services.gateway!.environment!;
    for (const name of configSecrets) {
      expect(Object.hasOwn(environment, name), name).toBe(true);
      const value = environment[name];
      // Required (`${NAME:?message}`: compose stops without it) or passed through when set (null).
      if (value !== null) expect(value, name).toMatch(new RegExp(`^\\$\\{${name}:\\?[^}]+\\}$`));
      // And said in .env.example, with the command that makes it.
      const example = examples.find((e) => e.name === name);
      expect(example, name).toBeDefined();
      expect(example!.make, name).toMatch(/^openssl rand /);
    }
  });

  it('holds no secret itself: every value of .env.example is empty, every password comes from it', () => {
    for (const example of examples) if (!example.commented) expect(example.value, example.name).toBe('');
    const [postgres, redis] = [compose.services.postgres!, compose.services.redis!];
    expect(postgres.environment!.POSTGRES_PASSWORD).toMatch(/^\$\{POSTGRES_PASSWORD:\?[^}]+\}$/);
    expect(redis.command![redis.command!.indexOf('--requirepass') + 1]).toMatch(
      /^\$\{REDIS_PASSWORD:\?[^}]+\}$/,
    );
    // The file's only literal credentials would be in its URLs: each carries its password's variable.
    const env = compose.services.indexer!.environment!;
    expect(env.DATABASE_URL).toMatch(/^postgres:\/\/postgres:\$\{POSTGRES_PASSWORD:\?[^}]+\}@/);
    expect(env.REDIS_URL).toMatch(/^redis:\/\/:\$\{REDIS_PASSWORD:\?[^}]+\}@/);
  });

  it('.env.example names every variable the file reads, and the required ones are exactly its uncommented lines', () => {
    const read = new Set([...composeText.matchAll(/\$\{([A-Za-z_]\w*)/g)].map((m) => m[1]!));
    const passed = Object.values(compose.services).flatMap((s) =>
      Object.entries(s.environment ?? {})
        .filter(([, value]) => value === null)
        .map(([name]) => name),
    );
    const required = new Set([...composeText.matchAll(/\$\{([A-Za-z_]\w*):\?/g)].map((m) => m[1]!));
    expect(new Set(examples.map((e) => e.name))).toEqual(new Set([...read, ...passed]));
    expect(new Set(examples.filter((e) => !e.commented).map((e) => e.name))).toEqual(required);
  });

  it('with .env.example filled in as it says, gives each replica a configuration the service accepts', () => {
    const env = Object.fromEntries(
      examples.filter((e) => !e.commented).map((e) => [e.name, made(e.make)] as const),
    );
    const resolved = composeWith(env);
    const gateway = resolved.services.gateway!.environment as Record<string, string>;
    const config = loadConfig(gateway);
    expect(config.internalToken).toBe(env.INTERNAL_TOKEN);
    expect(config.internalTokenGenerated).toBe(false);
    expect(config.metricsToken).toBe(env.METRICS_TOKEN);
    expect(config.webhooks.secretsKey).toEqual(Buffer.from(env.WEBHOOK_SECRETS_KEY!, 'hex'));
    // Commented out in .env.example: absent, not empty (an empty token would stop the start).
    expect('ANALYTICS_TOKEN' in gateway).toBe(false);
    expect(config.analyticsToken).toBeUndefined();
    expect(new URL(config.databaseUrl!).password).toBe(env.POSTGRES_PASSWORD);
    expect(new URL(config.redisUrl!).password).toBe(env.REDIS_PASSWORD);
    expect(resolved.services.postgres!.environment!.POSTGRES_PASSWORD).toBe(env.POSTGRES_PASSWORD);
    expect(resolved.services.redis!.command).toContain(env.REDIS_PASSWORD);
    expect(resolved.services.redis!.environment!.REDISCLI_AUTH).toBe(env.REDIS_PASSWORD);
    // The indexer reads the same store.
    expect(loadConfig(resolved.services.indexer!.environment as Record<string, string>).databaseUrl).toBe(
      config.databaseUrl,
    );

    // The optional analytics token, once set, reaches the replicas as it is.
    const analytics = made('openssl rand -hex 32');
    const withAnalytics = composeWith({ ...env, ANALYTICS_TOKEN: analytics }).services.gateway!.environment;
    expect(loadConfig(withAnalytics as Record<string, string>).analyticsToken).toBe(analytics);
  });

  it('stops, naming it, when a required secret is left empty', () => {
    const env = Object.fromEntries(
      examples.filter((e) => !e.commented).map((e) => [e.name, made(e.make)] as const),
    );
    for (const name of Object.keys(env)) {
      expect(() => composeWith({ ...env, [name]: '' }), name).toThrow(name);
      const { [name]: _, ...without } = env;
      expect(() => composeWith(without), name).toThrow(name);
    }
  });
});
