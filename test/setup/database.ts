/**
 * Global setup: the name of this run's template database (test/helpers/postgres.ts builds it when a
 * test first asks for a database), dropped when the run ends. Every project of vitest.config.ts runs
 * its global setup; they share the one name.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { TestProject } from 'vitest/node';

const MACHINE_PG = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const shared = globalThis as { templateDatabase?: { name: string; users: number } };

export default function setup(project: TestProject): () => Promise<void> {
  shared.templateDatabase ??= { name: `gw_template_${randomBytes(6).toString('hex')}`, users: 0 };
  const template = shared.templateDatabase;
  template.users += 1;
  project.provide('templateDatabase', template.name);
  return async () => {
    template.users -= 1;
    if (template.users > 0) return;
    const admin = new pg.Client({ connectionString: MACHINE_PG });
    await admin.connect();
    try {
      for (const name of [template.name, `${template.name}_building`])
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    } finally {
      await admin.end();
    }
  };
}
