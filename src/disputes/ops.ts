import type { Queryable } from '../platform/db/db.js';
import { disputesByDeadline, evidenceOf } from './data.js';
import { type DisputeView, disputeView } from './views.js';

/** A dispute as the operators' console lists it: the Dispute object and the account it belongs to. */
export type OpsDispute = DisputeView & { accountId: number };

/** Every account's disputes (or one's), open ones first by deadline. */
export async function opsDisputes(
  q: Queryable,
  filter: { accountId: number | null; openOnly: boolean; limit: number },
): Promise<OpsDispute[]> {
  const rows = await disputesByDeadline(q, filter);
  const evidence = rows.length
    ? await evidenceOf(
        q,
        rows.map((r) => Number(r.id)),
      )
    : [];
  return rows.map((r) => ({ ...disputeView(r, evidence), accountId: Number(r.account_id) }));
}
