import type { Queryable } from '../platform/db/db.js';
import type { AccountStatus } from './status.js';

/** What the console shows of an account, and the onboarding module reads of its own. */
export interface AccountProfileView {
  id: number;
  name: string;
  email: string;
  status: AccountStatus;
  statusReason: string | null;
  statusChangedAt: string | null;
  legalName: string | null;
  document: string | null;
  phone: string | null;
  address: Record<string, string> | null;
  payoutHold: boolean;
  payoutHoldReason: string | null;
  /** Card payments paused by the refusal ratio, until a risk operator resumes them. */
  cardPaymentsPaused: boolean;
  createdAt: string;
}

interface ProfileRow {
  id: string;
  name: string;
  email: string;
  status: AccountStatus;
  status_reason: string | null;
  status_changed_at: Date | null;
  legal_name: string | null;
  document: string | null;
  phone: string | null;
  address: Record<string, string> | null;
  payout_hold: boolean;
  payout_hold_reason: string | null;
  card_payments_paused: boolean;
  created_at: Date;
}

const COLUMNS = `id, name, email, status, status_reason, status_changed_at, legal_name, document, phone, address,
                 payout_hold, payout_hold_reason, card_payments_paused, created_at`;

const view = (r: ProfileRow): AccountProfileView => ({
  id: Number(r.id),
  name: r.name,
  email: r.email,
  status: r.status,
  statusReason: r.status_reason,
  statusChangedAt: r.status_changed_at ? r.status_changed_at.toISOString() : null,
  legalName: r.legal_name,
  document: r.document,
  phone: r.phone,
  address: r.address,
  payoutHold: r.payout_hold,
  payoutHoldReason: r.payout_hold_reason,
  cardPaymentsPaused: r.card_payments_paused === true,
  createdAt: r.created_at.toISOString(),
});

export async function accountProfile(q: Queryable, id: number): Promise<AccountProfileView | null> {
  const [row] = await q.query<ProfileRow>(`SELECT ${COLUMNS} FROM accounts WHERE id = $1`, [id]);
  return row ? view(row) : null;
}

/**
 * The console's account search, newest first: `q` matches the name or legal name (any part, any case, with or
 * without accents: search_fold, migration 131), the document (its digits) or the e-mail; `status` filters. `limit + 1` rows older than id `before`.
 */
export async function searchAccounts(
  q: Queryable,
  f: { text: string | null; status: AccountStatus | null; before: number | null; limit: number },
): Promise<AccountProfileView[]> {
  const text = f.text?.trim() || null;
  const digits = text?.replace(/\D/g, '') || null;
  const rows = await q.query<ProfileRow>(
    `SELECT ${COLUMNS} FROM accounts
      WHERE ($1::text IS NULL OR search_fold(name) LIKE search_fold($2) OR search_fold(legal_name) LIKE search_fold($2)
             OR email ILIKE $2
             OR ($3::text IS NOT NULL AND length($3) >= 3 AND document LIKE $3 || '%'))
        AND ($4::text IS NULL OR status = $4) AND ($5::bigint IS NULL OR id < $5)
      ORDER BY id DESC LIMIT $6`,
    [
      text,
      text ? `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null,
      digits,
      f.status,
      f.before,
      f.limit + 1,
    ],
  );
  return rows.map(view);
}
