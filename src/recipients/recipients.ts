import { randomUUID } from 'node:crypto';
import { type Actor, recordAudit } from '../audit/index.js';
import { ensureRecipientLedger, type RecipientBalance, recipientBalances } from '../ledger/index.js';
import type { Db, Queryable } from '../platform/db/db.js';
import { notFound, validation } from '../platform/errors/app-error.js';
import { isUuid } from '../platform/ids/public-ids.js';
import { isEmailAddress } from '../platform/net/email.js';
import { isCnpj, isCpf } from '../platform/text/documents.js';
import { nameProblem } from '../platform/text/names.js';
import { PIX_KEY_TYPES, type PixKeyType, pixKeyProblem } from '../withdrawals/index.js';
import {
  findRecipient,
  findRecipients,
  insertRecipient,
  listRecipients,
  type RecipientChanges,
  type RecipientRow,
  updateRecipient,
} from './data.js';

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
  /** False: it takes no new split; its balance, receivables and payouts go on. */
  active: boolean;
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
    active: r.active !== false,
    createdAt: new Date(r.created_at).toISOString(),
  };
}

/** Longest recipient name (it is printed in the platform's e-mails and the panel). */
const MAX_RECIPIENT_NAME = 200;

/** A recipient's name, checked as every name the gateway prints (platform/text/names.ts); else 400 naming it. */
function nameOf(raw: unknown): string {
  const name = typeof raw === 'string' ? raw.trim() : '';
  if (name.length < 1 || name.length > MAX_RECIPIENT_NAME)
    throw validation('name must be 1 to 200 characters');
  const problem = nameProblem(name, { maxLength: MAX_RECIPIENT_NAME });
  if (problem) throw validation(`name ${problem}`);
  return name;
}

function emailOf(raw: unknown): string {
  const email = typeof raw === 'string' ? raw.trim() : '';
  if (!isEmailAddress(email)) throw validation('email must be an e-mail address');
  return email;
}

function pixKeyTypeOf(raw: unknown): PixKeyType {
  if (typeof raw !== 'string' || !(PIX_KEY_TYPES as readonly string[]).includes(raw)) {
    throw validation(`pixKeyType must be one of ${PIX_KEY_TYPES.join(', ')}`);
  }
  return raw as PixKeyType;
}

function pixKeyOf(raw: unknown, type: PixKeyType): string {
  const pixKey = typeof raw === 'string' ? raw : '';
  const problem = pixKeyProblem(pixKey, type);
  if (problem) throw validation(problem);
  return pixKey;
}

function intervalOf(raw: unknown): TransferInterval {
  if (typeof raw !== 'string' || !(TRANSFER_INTERVALS as readonly string[]).includes(raw)) {
    throw validation(`transferInterval must be one of ${TRANSFER_INTERVALS.join(', ')}`);
  }
  return raw as TransferInterval;
}

/** The checked fields of a new recipient; a bad one → VALIDATION_ERROR naming it. */
export function parseRecipient(
  input: RecipientInput,
): Omit<RecipientRow, 'id' | 'uuid' | 'account_id' | 'created_at' | 'active'> {
  const name = nameOf(input.name);
  const rawDocument = typeof input.document === 'string' ? input.document : '';
  const document = /^[\d./-]{11,18}$/.test(rawDocument) ? rawDocument.replace(/\D/g, '') : '';
  if (!isCpf(document) && !isCnpj(document)) {
    throw validation('document must be a valid CPF (11 digits) or CNPJ (14 digits)');
  }
  const email = emailOf(input.email);
  const pixKeyType = pixKeyTypeOf(input.pixKeyType);
  const pixKey = pixKeyOf(input.pixKey, pixKeyType);
  return {
    name,
    document,
    email,
    pix_key: pixKey,
    pix_key_type: pixKeyType,
    transfer_interval: intervalOf(input.transferInterval ?? 'manual'),
  };
}

const CHANGEABLE = ['name', 'email', 'pixKey', 'pixKeyType', 'transferInterval', 'active'];

/**
 * The checked changes of `PATCH /api/recipients/{id}`: only the fields given. The document never changes (a
 * `document` field is refused naming it), nor does any field not listed; a new pixKey is checked against its
 * pixKeyType (the new one, or the recipient's). A bad field → VALIDATION_ERROR naming it.
 */
export function parseRecipientChanges(input: unknown, current: RecipientRow): RecipientChanges {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw validation('the body must be an object of the fields to change');
  }
  const body = input as Record<string, unknown>;
  if ('document' in body)
    throw validation("document never changes: a recipient's document is fixed at creation");
  const extra = Object.keys(body).find((k) => !CHANGEABLE.includes(k));
  if (extra !== undefined) {
    throw validation(`${extra} is not a field of a recipient that may change (${CHANGEABLE.join(', ')})`);
  }
  const out: RecipientChanges = {};
  if (body.name !== undefined) out.name = nameOf(body.name);
  if (body.email !== undefined) out.email = emailOf(body.email);
  if (body.pixKeyType !== undefined) out.pix_key_type = pixKeyTypeOf(body.pixKeyType);
  if (body.pixKey !== undefined || body.pixKeyType !== undefined) {
    if (body.pixKey === undefined) throw validation('pixKey must be given with a new pixKeyType');
    out.pix_key = pixKeyOf(body.pixKey, (out.pix_key_type ?? current.pix_key_type) as PixKeyType);
  }
  if (body.transferInterval !== undefined) out.transfer_interval = intervalOf(body.transferInterval);
  if (body.active !== undefined) {
    if (typeof body.active !== 'boolean') throw validation('active must be a boolean');
    out.active = body.active;
  }
  return out;
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

  /**
   * Changes a recipient (PATCH): the fields given, checked; the document never. Another account's: 404. The
   * change is in the account's audit log (`recipient.updated`, the fields named), in its transaction: a new Pix
   * key is where the recipient's money goes. A body that names no field (`{}`) changes nothing: the recipient
   * as it is, nothing written, nothing audited.
   */
  async update(accountId: number, id: string, input: unknown, actor: Actor): Promise<RecipientView> {
    const current = await this.get(accountId, id);
    const changes = parseRecipientChanges(input, current);
    if (Object.keys(changes).length === 0) return recipientView(current);
    return this.db.tx(async (tx) => {
      const row = await updateRecipient(tx, accountId, current.id, changes);
      if (!row) throw notFound('Recipient not found');
      await recordAudit(tx, accountId, actor, {
        action: 'recipient.updated',
        target: `recipient:${row.uuid} ${Object.keys(changes).sort().join(',')}`,
      });
      return recipientView(row);
    });
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
 * uuid, unknown, or another account's → VALIDATION_ERROR naming it (a charge's split is its body: 400); so is
 * an inactive recipient, which takes no new split, unless `includeInactive` (a list filtered by recipient).
 */
export async function resolveRecipients(
  q: Queryable,
  accountId: number,
  ids: string[],
  options: { includeInactive?: boolean; field?: string } = {},
): Promise<Map<string, number>> {
  // the charge's split names its recipients; a list filtered by one names it as its query does
  const field = options.field ?? 'split: recipientId';
  const wanted = [...new Set(ids.map((id) => id.toLowerCase()))];
  const bad = ids.find((id) => !isUuid(id));
  if (bad !== undefined) throw validation(`${field} ${JSON.stringify(bad)} is not a recipient id`);
  const rows = await findRecipients(q, accountId, wanted);
  const found = new Map(rows.map((r) => [r.uuid, r.id]));
  const missing = wanted.find((id) => !found.has(id));
  if (missing !== undefined) throw validation(`${field} ${missing} is not one of this account's recipients`);
  const inactive = options.includeInactive ? undefined : rows.find((r) => r.active === false);
  if (inactive !== undefined) {
    throw validation(
      `split: recipient ${inactive.uuid} (${JSON.stringify(inactive.name)}) is inactive and takes no new split`,
    );
  }
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
