import type { Queryable } from '../platform/db/db.js';
import { type OriginSale, saleOfOrigin } from '../sales/index.js';
import { CheckoutNotFound } from './errors.js';
import { findLinkBySlug } from './links.data.js';
import { findSession } from './sessions.data.js';
import { isSlug } from './slugs.js';
import { successRedirect } from './urls.js';

/** A sale a payer started on a page, and where that page sends them once it is paid (null: stay). */
export interface PayerSale {
  sale: OriginSale;
  redirectUrl: string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The sale `saleId` of the link `slug`, whatever the link's state now (a payer whose charge is open keeps
 * waiting for it after the link was used up). Another link's sale, or any other, is not found: the payer
 * learns only of the sale their own page started.
 */
export async function saleOfLink(q: Queryable, slug: string, saleId: string): Promise<PayerSale> {
  const link = isSlug(slug) ? await findLinkBySlug(q, slug) : null;
  const sale =
    link && UUID.test(saleId)
      ? await saleOfOrigin(q, saleId.toLowerCase(), { paymentLinkId: link.id })
      : null;
  if (!link || !sale) throw new CheckoutNotFound('Sale not found');
  return { sale, redirectUrl: link.success_url };
}

/** The sale `saleId` of the checkout session `id` (expired or not), as saleOfLink. */
export async function saleOfSession(q: Queryable, id: string, saleId: string): Promise<PayerSale> {
  const session = UUID.test(id) ? await findSession(q, id.toLowerCase(), null) : null;
  const sale =
    session && UUID.test(saleId)
      ? await saleOfOrigin(q, saleId.toLowerCase(), { checkoutSessionId: session.id })
      : null;
  if (!session || !sale) throw new CheckoutNotFound('Sale not found');
  return { sale, redirectUrl: successRedirect(session.success_url, session.id) };
}
