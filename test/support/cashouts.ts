import type { Db } from '../../src/platform/db/db.js';
import type { TestMerchant } from './factories.js';
import { call } from './http.js';
import { waitUntil } from './wait.js';

export interface Withdrawal {
  id: number;
  uuid: string;
  status: string;
  amount: string;
  [k: string]: unknown;
}

export async function createCashout(
  url: string,
  merchant: TestMerchant,
  amount: number,
  pixKey = '52998224725',
) {
  const res = await call<Withdrawal>('POST', `${url}/api/public/cashout`, {
    headers: merchant.keys,
    body: { amount, pixKey },
  });
  if (res.status !== 201) throw new Error(`cashout failed: ${res.status} ${res.text}`);
  return res.body;
}

export async function lookup(url: string, merchant: TestMerchant, id: string | number) {
  return (await call<Withdrawal>('GET', `${url}/api/public/cashout/${id}`, { headers: merchant.keys })).body;
}

export function waitForStatus(url: string, merchant: TestMerchant, id: string | number, status: string) {
  return waitUntil(async () => {
    const w = await lookup(url, merchant, id);
    return w.status === status && w;
  });
}

export interface EventRow {
  id: string;
  event_type: string;
  webhook_body: string;
}

export function withdrawalEvents(db: Db, withdrawalId: number): Promise<EventRow[]> {
  return db.query<EventRow>(
    `SELECT id, event_type, webhook_body FROM notification_events
      WHERE subject_type = 'withdrawal' AND subject_id = $1 ORDER BY created_at, event_type`,
    [withdrawalId],
  );
}

export async function setSandboxProvider(db: Db, state: 'up' | 'down'): Promise<void> {
  await db.query(`UPDATE settings SET value = $1 WHERE key = 'sandbox_payouts'`, [state]);
}
