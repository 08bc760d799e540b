import { type Actor, recordAudit } from '../audit/index.js';
import { lockForTransaction } from '../platform/db/advisory-lock.js';
import type { Db, Queryable } from '../platform/db/db.js';
import { AppError } from '../platform/errors/app-error.js';
import { canonicalIp } from '../platform/net/ip.js';
import { type AuthCache, notifyAuthChange } from './auth-cache.js';

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
  const out = new Set<string>();
  for (const entry of raw) {
    const ip = typeof entry === 'string' ? canonicalIp(entry) : null;
    if (!ip) throw new AppError('INVALID_IP', `Invalid IP address: ${JSON.stringify(entry)}`);
    out.add(ip);
  }
  if (out.size > MAX_ALLOWED_IPS) {
    throw new AppError(
      'TOO_MANY_IPS',
      `At most ${MAX_ALLOWED_IPS} IP addresses are allowed, got ${out.size} after removing duplicates`,
    );
  }
  return [...out];
}

export async function replaceAllowedIps(
  db: Db,
  accountId: number,
  raw: readonly unknown[],
  actor: Actor,
  cache?: AuthCache,
): Promise<string[]> {
  const ips = normalizeIpList(raw);
  let seq = 0;
  await db.tx(async (tx) => {
    // Serializes concurrent saves of one account's list (the last one wins whole, never a mix).
    await lockForTransaction(tx, 'allowed-ips', accountId);
    await tx.query('DELETE FROM allowed_ips WHERE account_id = $1', [accountId]);
    if (ips.length > 0) {
      await tx.query(
        `INSERT INTO allowed_ips (account_id, ip, position)
         SELECT $1, ip, ord::int FROM unnest($2::text[]) WITH ORDINALITY AS t(ip, ord)`,
        [accountId, ips],
      );
    }
    seq = await notifyAuthChange(tx, `ips:${accountId}`);
    await recordAudit(tx, accountId, actor, { action: 'allowed_ips.updated', target: ips.join(',') || null });
  });
  await cache?.awaitPropagation(seq);
  return ips;
}
