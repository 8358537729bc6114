import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

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
  ports?: unknown[];
  environment?: Record<string, string>;
  healthcheck?: { disable?: boolean };
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
}
const compose = parse(readFileSync('docker-compose.yml', 'utf8'), { merge: true }) as {
  services: Record<string, ComposeService>;
};

describe('the Dockerfile', () => {
  it('is multi-stage on a current Node LTS image (22 or 24, not the ended 20)', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const image = /^ARG NODE_IMAGE=(\S+)$/m.exec(dockerfile)?.[1] ?? '';
    expect(image).toMatch(/^node:(22|24)[.\w-]*$/);
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

  it('one image for the gateway and the indexer; the indexer (no HTTP) without the /healthz check', () => {
    expect(services.gateway!.build).toBe('.');
    expect(services.indexer!.image).toBe(services.gateway!.image);
    expect(services.indexer!.healthcheck?.disable).toBe(true);
    expect(services.indexer!.environment!.DATABASE_URL).toBe(services.gateway!.environment!.DATABASE_URL);
  });
});
