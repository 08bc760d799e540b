import { oneOf } from '../platform/literals/one-of.js';

/** The API's event names (the contract's Events → Permanent webhook). */
export const EVENT_NAMES = [
  'sale.pending',
  'sale.paid',
  'sale.refused',
  'sale.canceled',
  'sale.refunded',
  'sale.chargeback',
  'withdrawal.pending',
  'withdrawal.completed',
  'withdrawal.rejected',
  'withdrawal.canceled',
  'cart.abandoned',
  'cart.recovered',
  'dispute.opened',
  'dispute.won',
  'dispute.lost',
  'anticipation.paid',
  'anticipation.rejected',
  'subscription.created',
  'subscription.activated',
  'subscription.renewed',
  'subscription.past_due',
  'subscription.unpaid',
  'subscription.incomplete_expired',
  'subscription.canceled',
  'invoice.paid',
  'invoice.failed',
] as const;

export type EventName = (typeof EVENT_NAMES)[number];

export const isEventName = oneOf(EVENT_NAMES);

/** The event a sale's status fires (its statuses are the sales module's); EM_PROCESSAMENTO fires none. */
export const SALE_EVENT_OF_STATUS: Readonly<Record<string, EventName>> = {
  PENDENTE: 'sale.pending',
  PAGO: 'sale.paid',
  RECUSADO: 'sale.refused',
  FALHA: 'sale.refused',
  CANCELADO: 'sale.canceled',
  ESTORNADO: 'sale.refunded',
  CHARGEBACK: 'sale.chargeback',
  MED: 'sale.chargeback',
};
