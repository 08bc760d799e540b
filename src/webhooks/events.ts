/** The spec's event names (Events → Permanent webhook). */
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
] as const;

export type EventName = (typeof EVENT_NAMES)[number];

export function isEventName(value: unknown): value is EventName {
  return typeof value === 'string' && (EVENT_NAMES as readonly string[]).includes(value);
}
