import { randomUUID } from 'node:crypto';
import { cartRecoveryAccounts } from '../../accounts/index.js';
import { type MailOutbox, queueMail, renderMail } from '../../mail/index.js';
import type { Db, Queryable } from '../../platform/db/db.js';
import { formatBrl } from '../../platform/money/money.js';
import { greeting, nameForMail } from '../../platform/text/names.js';
import {
  type Customer,
  cartPaymentUnderWaySql,
  type OriginSale,
  openPixOfCarts,
  type SaleItem,
  type SaleOrigin,
} from '../../sales/index.js';
import { type NotificationFact, recordNotifications } from '../../webhooks/index.js';
import { type CartRow, cartNotificationBody } from './carts.js';

/**
 * The cart of a payer who gave their data on a checkout page, for the sale about to be opened: a session has
 * one cart, a link one per payer (by e-mail) while it is open or abandoned, so a payer who comes back and pays
 * recovers the cart they left. Called in the sale's transaction, for a sale opened from a page with a recovery
 * address (the sales module's `cartOfCheckout` decides that).
 */
export async function checkoutCart(
  tx: Queryable,
  accountId: number,
  origin: SaleOrigin,
  sale: { customer: Customer; items: Omit<SaleItem, 'id'>[]; amount: number },
): Promise<number> {
  const [found] = origin.checkoutSessionId
    ? await tx.query<{ id: number }>(
        `SELECT id FROM carts WHERE checkout_session_id = $1 AND status IN ('OPEN', 'ABANDONED')
          ORDER BY id DESC LIMIT 1 FOR UPDATE`,
        [origin.checkoutSessionId],
      )
    : await tx.query<{ id: number }>(
        `SELECT id FROM carts WHERE payment_link_id = $1 AND customer->>'email' = $2
            AND status IN ('OPEN', 'ABANDONED')
          ORDER BY id DESC LIMIT 1 FOR UPDATE`,
        [origin.paymentLinkId, sale.customer.email],
      );
  if (found) {
    // the payer's latest choice is the cart's (an open link's amount, their name or e-mail as typed again): its
    // abandonment and recovery tell what they were paying, and the recovery e-mail says so
    await tx.query('UPDATE carts SET customer = $2, items = $3, amount = $4 WHERE id = $1', [
      found.id,
      JSON.stringify(sale.customer),
      JSON.stringify(cartItems(sale.items)),
      sale.amount,
    ]);
    return Number(found.id);
  }
  const [made] = await tx.query<{ id: number }>(
    `INSERT INTO carts (uuid, account_id, status, customer, items, amount, payment_link_id, checkout_session_id,
                        recovery_url)
     VALUES ($1, $2, 'OPEN', $3, $4, $5, $6, $7, $8) RETURNING id`,
    [
      randomUUID(),
      accountId,
      JSON.stringify(sale.customer),
      JSON.stringify(cartItems(sale.items)),
      sale.amount,
      origin.paymentLinkId ?? null,
      origin.checkoutSessionId ?? null,
      origin.recoveryUrl,
    ],
  );
  return Number(made!.id);
}

const cartItems = (items: Omit<SaleItem, 'id'>[]) =>
  items.map(({ title, unitPrice, quantity, tangible }) => ({ title, unitPrice, quantity, tangible }));

/** How often open checkout carts are looked at: well within a minute of their abandonment. */
export const CART_ABANDON_CHECK_EVERY_MS = 20_000;
const BATCH = 100;

/**
 * Checkout carts left OPEN (no sale of theirs paid, none under way: a boleto not yet paid nor cancelled, a card
 * being decided, whose payer left nothing undone and must not be asked to pay again) for `afterMinutes` become
 * ABANDONED, each with its
 * cart.abandoned fact and, when its account has the recovery e-mail on, one e-mail to the payer with the
 * page's link, in the transaction that abandons it (once: an abandoned cart is never abandoned again).
 * Several workers share the carts (SKIP LOCKED). Returns how many were abandoned.
 */
export async function abandonCheckoutCarts(db: Db, mail: MailOutbox, afterMinutes: number): Promise<number> {
  let total = 0;
  for (;;) {
    const done = await db.tx(async (tx) => {
      const carts = await tx.query<CartRow & { recovery_url: string }>(
        `WITH due AS (
           SELECT id FROM carts
            WHERE status = 'OPEN' AND recovery_url IS NOT NULL
              AND created_at < now() - make_interval(mins => $1)
              AND NOT ${cartPaymentUnderWaySql('carts.id')}
            ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED)
         UPDATE carts c SET status = 'ABANDONED', abandoned_at = now() FROM due WHERE c.id = due.id
         RETURNING c.*`,
        [afterMinutes, BATCH],
      );
      if (carts.length === 0) return 0;
      const facts: NotificationFact[] = carts.map((c) => ({
        accountId: c.account_id,
        event: 'cart.abandoned',
        subjectType: 'cart',
        subjectId: c.id,
        webhookBody: cartNotificationBody(c, null),
      }));
      await recordNotifications(tx, facts);
      const mailing = await cartRecoveryAccounts(
        tx,
        carts.map((c) => c.account_id),
      );
      const mailed = carts.filter((c) => mailing.has(c.account_id) && c.customer.email);
      const openPix = await openPixOfCarts(
        tx,
        mailed.map((c) => Number(c.id)),
      );
      for (const cart of mailed) {
        await queueMail(tx, mail, {
          cause: `cart-recovery:${cart.uuid}`,
          to: cart.customer.email,
          ...recoveryMail(cart, mailing.get(cart.account_id)!, openPix.get(Number(cart.id)) ?? null),
        });
      }
      return carts.length;
    });
    total += done;
    if (done < BATCH) return total;
  }
}

/** "30/11, 14:05": a time of today or tomorrow as a payer in Brazil reads it. */
const spTime = (at: Date) =>
  at.toLocaleString('pt-BR', {
    timeZone: 'America/Sao_Paulo',
    hour: '2-digit',
    minute: '2-digit',
    day: '2-digit',
    month: '2-digit',
  });

/**
 * The payer's recovery e-mail. A Pix the payer left open is in it, code and end: paid from any device, where the
 * page knows its payer only in the browser that opened it (and a link whose uses that Pix holds takes no other).
 */
function recoveryMail(
  cart: CartRow & { recovery_url: string },
  merchant: string,
  openPix: OriginSale | null,
) {
  // the payer typed the name and the address: nothing in it may become a link in the mail
  const first = cart.customer.name.trim().split(' ')[0];
  const shop = nameForMail(merchant, 'a loja');
  const pix =
    openPix?.pixKey && openPix.chargeExpiresAt
      ? [
          `O Pix de ${formatBrl(openPix.amount)} que você gerou continua valendo até ${spTime(openPix.chargeExpiresAt)} (horário de Brasília). Para pagar agora, copie este código no app do seu banco (Pix Copia e Cola):`,
          openPix.pixKey,
          'Depois desse horário, abra o link abaixo: a página mostra de novo como pagar.',
        ]
      : ['Se ainda quiser concluir, abra o link abaixo: a página mostra de novo como pagar.'];
  return renderMail({
    subject: `Seu pagamento para ${shop} ficou pendente`,
    paragraphs: [
      greeting(first),
      `Você começou um pagamento de ${formatBrl(cart.amount)} para ${shop} e ele não foi concluído.`,
      ...pix,
    ],
    action: { label: 'Concluir pagamento', url: cart.recovery_url },
    footnote: 'Se você já pagou ou desistiu da compra, ignore este e-mail.',
  });
}
