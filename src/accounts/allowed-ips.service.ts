import { notifyAuthChange } from '../auth/auth-cache.js';
import type { Db, Queryable } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { canonicalIp } from '../platform/ip.js';

export const MAX_ALLOWED_IPS = 20;

export async function listAllowedIps(q: Queryable, accountId: number): Promise<string[]> {
  const rows = await q.query<{ ip: string }>(
    'SELECT ip FROM allowed_ips WHERE account_id = $1 ORDER BY position',
    [accountId],
  );
  return rows.map((r) => r.ip);
}

/** Validates the whole list first: one bad entry refuses the request and the stored list stays as it was. */
export function normalizeIpList(raw: readonly unknown[]): string[] {
  const out: string[] = [];
  for (const entry of raw) {
    const ip = typeof entry === 'string' ? canonicalIp(entry) : null;
    if (!ip) throw new AppError('INVALID_IP', `Invalid IP address: ${JSON.stringify(entry)}`);
    if (!out.includes(ip)) out.push(ip);
  }
  if (out.length > MAX_ALLOWED_IPS) {
    throw new AppError(
      'TOO_MANY_IPS',
      `At most ${MAX_ALLOWED_IPS} IP addresses are allowed, got ${out.length}`,
    );
  }
  return out;
}

export async function replaceAllowedIps(
  db: Db,
  accountId: number,
  raw: readonly unknown[],
): Promise<string[]> {
  const ips = normalizeIpList(raw);
  await db.tx(async (tx) => {
    await tx.query('DELETE FROM allowed_ips WHERE account_id = $1', [accountId]);
    if (ips.length > 0) {
      await tx.query(
        `INSERT INTO allowed_ips (account_id, ip, position)
         SELECT $1, ip, ord::int FROM unnest($2::text[]) WITH ORDINALITY AS t(ip, ord)`,
        [accountId, ips],
      );
    }
    await notifyAuthChange(tx, `ips:${accountId}`);
  });
  return ips;
}
