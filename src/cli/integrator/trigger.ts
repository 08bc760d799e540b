import { UsageError } from '../../platform/cli/command.js';
import { EVENT_NAMES, type EventName } from '../../webhooks/events.js';
import { api, type Target } from './client.js';

export interface Triggered {
  event: EventName;
  sale?: string;
  withdrawal?: string;
  cart?: number;
}

interface Sale {
  id: number;
  uuid: string;
}
interface Withdrawal {
  id: number;
  uuid: string;
  status: string;
}

const BUYER = {
  name: 'Maria Silva',
  email: 'maria@example.com',
  document: '52998224725',
  phone: '5511987654321',
};
const ITEMS = [{ title: 'Pedido de teste', unitPrice: 50_000, quantity: 1, tangible: false }];
/** What a triggered sale is paid: enough, after any account's fees and reserve, to fund a R$ 100 withdrawal. */
const SALE = { amount: 50_000, paymentMethod: 'PIX', customer: BUYER, items: ITEMS };

/**
 * `gateway trigger EVENT`: makes that fact happen for real through the sandbox routes, creating and funding what
 * it needs, and returns the ids of what it made.
 */
export async function trigger(target: Target, raw: string): Promise<Triggered> {
  if (!(EVENT_NAMES as readonly string[]).includes(raw)) {
    throw new UsageError(`unknown event "${raw}" (one of: ${EVENT_NAMES.join(', ')})`);
  }
  const event = raw as EventName;
  const status = (sale: Sale, to: string) =>
    api<Sale>(target, 'POST', `/api/sandbox/sales/${sale.id}/status`, { status: to });
  const newSale = async (extra: object = {}) => {
    try {
      return await api<Sale>(target, 'POST', '/api/sandbox/sales', { ...SALE, ...extra });
    } catch (err) {
      if (/answered 404/.test((err as Error).message)) {
        throw new Error(
          `the gateway at ${target.url} has no sandbox routes (SANDBOX is off): nothing can be triggered there`,
        );
      }
      throw err;
    }
  };
  switch (event) {
    case 'sale.pending':
      return { event, sale: (await newSale()).uuid };
    case 'sale.paid':
    case 'sale.refused':
    case 'sale.canceled': {
      const sale = await newSale();
      await status(
        sale,
        { 'sale.paid': 'PAGO', 'sale.refused': 'RECUSADO', 'sale.canceled': 'CANCELADO' }[event],
      );
      return { event, sale: sale.uuid };
    }
    case 'sale.refunded':
    case 'sale.chargeback': {
      const sale = await newSale();
      await status(sale, 'PAGO');
      await status(sale, event === 'sale.refunded' ? 'ESTORNADO' : 'CHARGEBACK');
      return { event, sale: sale.uuid };
    }
    case 'cart.abandoned':
    case 'cart.recovered': {
      const cart = await api<{ id: number }>(target, 'POST', '/api/sandbox/carts', {
        customer: BUYER,
        items: ITEMS,
      });
      await api(target, 'POST', `/api/sandbox/carts/${cart.id}/abandon`);
      if (event === 'cart.abandoned') return { event, cart: cart.id };
      const sale = await newSale({ cartId: cart.id });
      await status(sale, 'PAGO');
      return { event, cart: cart.id, sale: sale.uuid };
    }
    default:
      return { event, ...(await withdrawal(target, event, newSale, status)) };
  }
}

/** A funded withdrawal, brought to the event's status. */
async function withdrawal(
  target: Target,
  event: EventName,
  newSale: () => Promise<Sale>,
  status: (sale: Sale, to: string) => Promise<Sale>,
): Promise<{ sale: string; withdrawal: string }> {
  const funding = await newSale();
  await status(funding, 'PAGO');
  const cashout = () =>
    api<Withdrawal>(target, 'POST', '/api/public/cashout', {
      amount: '100.00',
      pixKey: '52998224725',
      pixKeyType: 'CPF',
    });
  if (event === 'withdrawal.canceled') {
    const w = await cashout();
    // refused (409) only for the moments the payout worker is sending it: then it is PROCESSING, and the
    // sandbox provider gives it up
    for (let attempt = 0; ; attempt++) {
      try {
        await api(target, 'POST', `/api/sandbox/cashouts/${w.uuid}/cancel`);
        return { sale: funding.uuid, withdrawal: w.uuid };
      } catch (err) {
        if (!/answered 409/.test((err as Error).message) || attempt >= 50) throw err;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  }
  const w = await cashout();
  // withdrawal.pending is its sending to the provider: the gateway's payout worker does it within moments
  const deadline = Date.now() + 30_000;
  for (;;) {
    const now = await api<Withdrawal>(target, 'GET', `/api/public/cashout/${w.uuid}`);
    if (now.status === 'PROCESSING') break;
    if (now.status !== 'PENDING') throw new Error(`withdrawal ${w.uuid} is ${now.status}`);
    if (Date.now() > deadline) {
      throw new Error(
        `withdrawal ${w.uuid} is still PENDING after 30 s: is a worker running with PAYOUT_PROVIDER=sandbox?`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  if (event === 'withdrawal.completed' || event === 'withdrawal.rejected') {
    await api(target, 'POST', `/api/sandbox/cashouts/${w.uuid}/result`, {
      result: event === 'withdrawal.completed' ? 'COMPLETED' : 'REJECTED',
    });
  }
  return { sale: funding.uuid, withdrawal: w.uuid };
}
