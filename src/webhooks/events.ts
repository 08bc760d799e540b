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

/** `["*"]` selects every event except cart.* (cart events must be named explicitly). */
export function selects(subscribed: readonly string[], event: EventName): boolean {
  if (subscribed.includes(event)) return true;
  return subscribed.includes('*') && !event.startsWith('cart.');
}
