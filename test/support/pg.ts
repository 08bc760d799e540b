import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';

/** The server tests run against: DATABASE_URL if set, else the local PostgreSQL (trust auth, user postgres). */
export const BASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
// Each checkout gets its own namespace, so test runs of several work trees on one server never collide;
// TEST_DB_NAMESPACE (letters and digits) gives runs in one work tree namespaces apart.
export const NAMESPACE = /^[a-z0-9]{1,16}$/.test(process.env.TEST_DB_NAMESPACE ?? '')
  ? process.env.TEST_DB_NAMESPACE!
  : createHash('sha256').update(process.cwd()).digest('hex').slice(0, 8);
export const TEMPLATE_DB = `gw_tpl_${NAMESPACE}`;
export const TEST_DB_PREFIX = `gw_t_${NAMESPACE}_`;

export function urlFor(database: string): string {
  const u = new URL(BASE_URL);
  u.pathname = `/${database}`;
  return u.toString();
}

export async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: BASE_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** A fresh database cloned from the migrated template; dropped by the returned function. */
export async function freshDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${TEST_DB_PREFIX}${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE_DB}`));
  return {
    url: urlFor(name),
    drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}
