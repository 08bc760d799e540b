import { randomUUID } from 'node:crypto';
import { ensureRecipientLedger, type RecipientBalance, recipientBalances } from '../ledger/index.js';
import type { Db, Queryable } from '../platform/db/db.js';
import { notFound, validation } from '../platform/errors/app-error.js';
import { isUuid } from '../platform/ids/public-ids.js';
import { isEmailAddress } from '../platform/net/email.js';
import { isCnpj, isCpf } from '../platform/text/documents.js';
import { PIX_KEY_TYPES, type PixKeyType, pixKeyProblem } from '../withdrawals/index.js';
import { findRecipient, findRecipients, insertRecipient, listRecipients, type RecipientRow } from './data.js';

export const TRANSFER_INTERVALS = ['manual', 'daily', 'weekly'] as const;
export type TransferInterval = (typeof TRANSFER_INTERVALS)[number];

export interface RecipientInput {
  name: unknown;
  document: unknown;
  email: unknown;
  pixKey: unknown;
  pixKeyType: unknown;
  transferInterval?: unknown;
}

/** The Recipient object of the API. */
export interface RecipientView {
  id: string;
  name: string;
  document: string;
  email: string;
  pixKey: string;
  pixKeyType: string;
  transferInterval: TransferInterval;
  createdAt: string;
}

export function recipientView(r: RecipientRow): RecipientView {
  return {
    id: r.uuid,
    name: r.name,
    document: r.document,
    email: r.email,
    pixKey: r.pix_key,
    pixKeyType: r.pix_key_type,
    transferInterval: r.transfer_interval,
    createdAt: new Date(r.created_at).toISOString(),
  };
}

/** The checked fields of a new recipient; a bad one → VALIDATION_ERROR naming it. */
export function parseRecipient(
  input: RecipientInput,
): Omit<RecipientRow, 'id' | 'uuid' | 'account_id' | 'created_at'> {
  const name = typeof input.name === 'string' ? input.name.trim() : '';
  if (name.length < 1 || name.length > 200) throw validation('name must be 1 to 200 characters');
  const rawDocument = typeof input.document === 'string' ? input.document : '';
  const document = /^[\d./-]{11,18}$/.test(rawDocument) ? rawDocument.replace(/\D/g, '') : '';
  if (!isCpf(document) && !isCnpj(document)) {
    throw validation('document must be a valid CPF (11 digits) or CNPJ (14 digits)');
  }
  const email = typeof input.email === 'string' ? input.email.trim() : '';
  if (!isEmailAddress(email)) throw validation('email must be an e-mail address');
  const pixKeyType = input.pixKeyType;
  if (typeof pixKeyType !== 'string' || !(PIX_KEY_TYPES as readonly string[]).includes(pixKeyType)) {
    throw validation(`pixKeyType must be one of ${PIX_KEY_TYPES.join(', ')}`);
  }
  const pixKey = typeof input.pixKey === 'string' ? input.pixKey : '';
  const problem = pixKeyProblem(pixKey, pixKeyType as PixKeyType);
  if (problem) throw validation(problem);
  const interval = input.transferInterval ?? 'manual';
  if (typeof interval !== 'string' || !(TRANSFER_INTERVALS as readonly string[]).includes(interval)) {
    throw validation(`transferInterval must be one of ${TRANSFER_INTERVALS.join(', ')}`);
  }
  return {
    name,
    document,
    email,
    pix_key: pixKey,
    pix_key_type: pixKeyType,
    transfer_interval: interval as TransferInterval,
  };
}

/**
 * A platform account's recipients (split payments): sub-accounts reached only through it. Each has its own
 * balance in the ledger (made with it, in its creation's transaction); another account's recipient is not found.
 */
export class Recipients {
  constructor(private readonly db: Db) {}

  async create(accountId: number, input: RecipientInput): Promise<RecipientView> {
    const fields = parseRecipient(input);
    return this.db.tx(async (tx) => {
      const row = await insertRecipient(tx, { ...fields, uuid: randomUUID(), account_id: accountId });
      await ensureRecipientLedger(tx, row.id);
      return recipientView(row);
    });
  }

  async get(accountId: number, id: string): Promise<RecipientRow> {
    const row = isUuid(id) ? await findRecipient(this.db, accountId, id.toLowerCase()) : null;
    if (!row) throw notFound('Recipient not found');
    return row;
  }

  /** The account's recipient as a cashout pays it out (the withdrawals module's PayoutRecipient). */
  async payee(
    accountId: number,
    id: string,
  ): Promise<{ id: number; uuid: string; pixKey: string; pixKeyType: string }> {
    const row = await this.get(accountId, id);
    return { id: row.id, uuid: row.uuid, pixKey: row.pix_key, pixKeyType: row.pix_key_type };
  }

  async list(accountId: number, before: number | null, limit: number): Promise<RecipientRow[]> {
    return listRecipients(this.db, accountId, before, limit);
  }

  async balance(accountId: number, id: string): Promise<RecipientBalance> {
    const row = await this.get(accountId, id);
    return (await recipientBalances(this.db, [row.id])).get(row.id)!;
  }
}

/**
 * The account's recipients named by a charge's split, by uuid: a map uuid → internal id. An id that is not a
 * uuid, unknown, or another account's → VALIDATION_ERROR naming it (a charge's split is its body: 400).
 */
export async function resolveRecipients(
  q: Queryable,
  accountId: number,
  ids: string[],
): Promise<Map<string, number>> {
  const wanted = [...new Set(ids.map((id) => id.toLowerCase()))];
  const bad = ids.find((id) => !isUuid(id));
  if (bad !== undefined) throw validation(`split: recipientId ${JSON.stringify(bad)} is not a recipient id`);
  const rows = await findRecipients(q, accountId, wanted);
  const found = new Map(rows.map((r) => [r.uuid, r.id]));
  const missing = wanted.find((id) => !found.has(id));
  if (missing !== undefined) throw validation(`split: recipient ${missing} is not one of this account's`);
  return found;
}

/** An account's recipients with their balances, newest first (the console's account page). */
export async function accountRecipients(
  q: Queryable,
  accountId: number,
  limit: number,
): Promise<(RecipientView & { balance: RecipientBalance })[]> {
  const rows = await listRecipients(q, accountId, null, limit);
  const balances = await recipientBalances(
    q,
    rows.map((r) => r.id),
  );
  return rows.map((r) => ({ ...recipientView(r), balance: balances.get(r.id)! }));
}
