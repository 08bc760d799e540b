import { randomUUID } from 'node:crypto';
import type { Db, Queryable } from '../../platform/db/db.js';
import { conflict, notFound, validation } from '../../platform/errors/app-error.js';
import type { PublicId } from '../../platform/ids/public-ids.js';
import { MAX_CHARGE_CENTS } from '../../platform/money/money.js';
import type { Customer, SaleRow } from '../../sales/index.js';
import { recordNotification } from '../../webhooks/index.js';

export type CartStatus = 'OPEN' | 'ABANDONED' | 'RECOVERED' | 'CONVERTED';

export interface CartItem {
  title: string;
  unitPrice: number;
  quantity: number;
  tangible: boolean;
}

export interface CartRow {
  id: number;
  uuid: string;
  account_id: number;
  status: CartStatus;
  customer: Customer;
  items: CartItem[];
  amount: number;
  sale_id: number | null;
  created_at: Date;
  abandoned_at: Date | null;
  closed_at: Date | null;
}

/** The cart as the sandbox answers it. */
export function cartView(c: CartRow) {
  return {
    id: c.id,
    uuid: c.uuid,
    userId: c.account_id,
    status: c.status,
    customer: {
      name: c.customer.name,
      email: c.customer.email,
      document: c.customer.document,
      phone: c.customer.phone,
    },
    items: c.items.map((i) => ({
      title: i.title,
      unitPrice: i.unitPrice,
      quantity: i.quantity,
      tangible: i.tangible,
    })),
    amount: c.amount,
    saleId: c.sale_id,
    createdAt: c.created_at.toISOString(),
  };
}

/** The cart.* notification body (documented in docs/decisions.md, "Sales"): sale-notification style. */
export function cartNotificationBody(c: CartRow, sale: SaleRow | null) {
  return {
    id: c.id,
    uuid: c.uuid,
    userId: c.account_id,
    status: c.status,
    customerName: c.customer.name,
    customerEmail: c.customer.email,
    customerDocument: c.customer.document,
    customerPhone: c.customer.phone,
    items: c.items.map((i) => ({
      title: i.title,
      unitPrice: String(i.unitPrice),
      quantity: i.quantity,
      tangible: i.tangible,
    })),
    amount: String(c.amount),
    createdAt: c.created_at.toISOString(),
    saleId: sale?.id ?? null,
    saleUuid: sale?.uuid ?? null,
    type: 'CART',
  };
}

export async function createCart(
  db: Db,
  accountId: number,
  input: { customer: Customer; items: CartItem[] },
): Promise<CartRow> {
  const amount = input.items.reduce((sum, i) => sum + i.unitPrice * i.quantity, 0);
  if (amount > MAX_CHARGE_CENTS) throw validation('the items add up to more than 1,000,000,000.00');
  const [row] = await db.query<CartRow>(
    `INSERT INTO carts (uuid, account_id, status, customer, items, amount)
     VALUES ($1, $2, 'OPEN', $3, $4, $5) RETURNING *`,
    [randomUUID(), accountId, JSON.stringify(input.customer), JSON.stringify(input.items), amount],
  );
  return row!;
}

export async function findCart(q: Queryable, accountId: number, id: PublicId): Promise<CartRow | null> {
  const [row] =
    id.kind === 'uuid'
      ? await q.query<CartRow>('SELECT * FROM carts WHERE uuid = $1 AND account_id = $2', [
          id.uuid,
          accountId,
        ])
      : await q.query<CartRow>('SELECT * FROM carts WHERE id = $1 AND account_id = $2', [id.id, accountId]);
  return row ?? null;
}

/** OPEN → ABANDONED fires cart.abandoned; abandoning it again changes nothing; a closed cart → CONFLICT. */
export async function abandonCart(db: Db, accountId: number, id: PublicId): Promise<CartRow> {
  return db.tx(async (tx) => {
    const found = await findCart(tx, accountId, id);
    if (!found) throw notFound('cart not found');
    const [cart] = await tx.query<CartRow>('SELECT * FROM carts WHERE id = $1 FOR UPDATE', [found.id]);
    if (cart!.status === 'ABANDONED') return cart!;
    if (cart!.status !== 'OPEN') throw conflict(`a ${cart!.status} cart cannot be abandoned`);
    const [updated] = await tx.query<CartRow>(
      `UPDATE carts SET status = 'ABANDONED', abandoned_at = now() WHERE id = $1 RETURNING *`,
      [cart!.id],
    );
    await recordNotification(tx, {
      accountId,
      event: 'cart.abandoned',
      subjectType: 'cart',
      subjectId: updated!.id,
      webhookBody: cartNotificationBody(updated!, null),
    });
    return updated!;
  });
}

/**
 * A sale created from a cart reached PAGO for the first time (called inside the sale's transition): an
 * abandoned cart becomes RECOVERED and fires cart.recovered; an open one becomes CONVERTED silently.
 */
export async function onSalePaid(tx: Queryable, sale: SaleRow): Promise<void> {
  const [cart] = await tx.query<CartRow>('SELECT * FROM carts WHERE id = $1 FOR UPDATE', [sale.cart_id]);
  if (!cart || (cart.status !== 'OPEN' && cart.status !== 'ABANDONED')) return;
  const status: CartStatus = cart.status === 'ABANDONED' ? 'RECOVERED' : 'CONVERTED';
  const [updated] = await tx.query<CartRow>(
    'UPDATE carts SET status = $2, sale_id = $3, closed_at = now() WHERE id = $1 RETURNING *',
    [cart.id, status, sale.id],
  );
  if (status !== 'RECOVERED') return;
  await recordNotification(tx, {
    accountId: sale.account_id,
    event: 'cart.recovered',
    subjectType: 'cart',
    subjectId: cart.id,
    webhookBody: cartNotificationBody(updated!, sale),
  });
}
