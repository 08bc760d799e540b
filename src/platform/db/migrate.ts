import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../files/project-root.js';
import type { Db } from './db.js';

const MIGRATIONS_DIR = path.join(PROJECT_ROOT, 'migrations');
// Any constant shared by every process of this gateway; serializes concurrent `migrate` runs.
const MIGRATION_LOCK = 727274001;

export interface MigrationResult {
  applied: string[];
}

/**
 * Applies the migrations not applied yet, in order, in one transaction. `through` stops after the named one
 * (a version, e.g. `269_sale_payer_token`): a database as an earlier release left it, for upgrade tests.
 */
export async function migrate(db: Db, options: { through?: string } = {}): Promise<MigrationResult> {
  const files = readdirSync(MIGRATIONS_DIR)
    .filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f))
    .filter((f) => options.through === undefined || f.replace(/\.sql$/, '') <= options.through)
    .sort();
  return db.tx(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await tx.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const done = new Set(
      (await tx.query<{ version: string }>('SELECT version FROM schema_migrations')).map((r) => r.version),
    );
    const applied: string[] = [];
    for (const file of files) {
      const version = file.replace(/\.sql$/, '');
      if (done.has(version)) continue;
      const sql = readFileSync(path.join(MIGRATIONS_DIR, file), 'utf8');
      for (const statement of splitStatements(sql)) await tx.query(statement);
      await tx.query('INSERT INTO schema_migrations (version) VALUES ($1)', [version]);
      applied.push(version);
    }
    return { applied };
  });
}

/** Statements end with `;` at the end of a line; dollar-quoted bodies ($$ ... $$) are kept whole. */
function splitStatements(sql: string): string[] {
  const out: string[] = [];
  let current: string[] = [];
  let inDollar = false;
  for (const line of sql.split('\n')) {
    if (line.trim().startsWith('--') && !inDollar) continue;
    current.push(line);
    if ((line.match(/\$\$/g)?.length ?? 0) % 2 === 1) inDollar = !inDollar;
    if (!inDollar && line.trimEnd().endsWith(';')) {
      const stmt = current.join('\n').trim();
      if (stmt) out.push(stmt);
      current = [];
    }
  }
  const rest = current.join('\n').trim();
  if (rest) out.push(rest);
  return out;
}
