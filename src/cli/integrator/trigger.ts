import { luhnValid } from '../../cards/cli.js';
import { UsageError } from '../../platform/cli/command.js';
import { EVENT_NAMES, type EventName } from '../../webhooks/cli.js';
import { api, type Target } from './client.js';

export interface Triggered {
  event: EventName;
  sale?: string;
  withdrawal?: string;
  cart?: number;
  dispute?: string;
  anticipation?: string;
  subscription?: string;
}

interface Sale {
  id: number;
  uuid: string;
}
interface Withdrawal {
  id: number;
  uuid: string;
  status: string;
  approval: { status: string } | null;
}

const BUYER = {
  name: 'Maria Silva',
  email: 'maria@example.com',
  document: '52998224725',
  phone: '5511987654321',
};
/** The buyer of the trigger's card sales and subscriptions: one customer, found again run after run. */
const TRIGGER_BUYER = { ...BUYER, email: 'maria.trigger@example.com' };
const ITEMS = [{ title: 'Pedido de teste', unitPrice: 50_000, quantity: 1, tangible: false }];
/** What a triggered sale is paid: enough, after any account's fees and reserve, to fund a R$ 100 withdrawal. */
const SALE = { amount: 50_000, paymentMethod: 'PIX', customer: BUYER, items: ITEMS };

/** The caller's own object to move instead of making one (`--sale ID`, `--withdrawal ID`: uuid or numeric id). */
export interface TriggerSubject {
  sale?: string;
  withdrawal?: string;
}

/** What each event needs: an own sale, an own withdrawal, or neither (it makes what it needs). */
export function subjectProblem(event: EventName, subject: TriggerSubject): string | null {
  if (subject.sale && subject.withdrawal) return 'give --sale or --withdrawal, not both';
  if (subject.sale && !SALE_MOVES[event] && !DISPUTE_EVENTS.includes(event)) {
    return `--sale moves a sale to ${Object.keys(SALE_MOVES).join(', ')}; ${event} ${event === 'sale.pending' ? 'is a new sale: trigger it without --sale' : 'is not a sale event'}`;
  }
  if (subject.withdrawal && !WITHDRAWAL_EVENTS.includes(event)) {
    return `--withdrawal moves a withdrawal to ${WITHDRAWAL_EVENTS.join(', ')}, not ${event}`;
  }
  return null;
}

/** The statuses an own sale goes through for each event (from PENDENTE; a step it has passed is skipped). */
const SALE_MOVES: Partial<Record<EventName, string[]>> = {
  'sale.paid': ['PAGO'],
  'sale.refused': ['RECUSADO'],
  'sale.canceled': ['CANCELADO'],
  'sale.refunded': ['PAGO', 'ESTORNADO'],
  'sale.chargeback': ['PAGO', 'CHARGEBACK'],
};
const DISPUTE_EVENTS: EventName[] = ['dispute.opened', 'dispute.won', 'dispute.lost'];
const WITHDRAWAL_EVENTS: EventName[] = ['withdrawal.completed', 'withdrawal.rejected', 'withdrawal.canceled'];

/**
 * `gateway trigger EVENT`: makes that fact happen for real through the sandbox routes, creating and funding what
 * it needs (or moving the caller's own sale or withdrawal), and returns the ids of what it made or moved.
 */
export async function trigger(target: Target, raw: string, subject: TriggerSubject = {}): Promise<Triggered> {
  if (!(EVENT_NAMES as readonly string[]).includes(raw)) {
    throw new UsageError(`unknown event "${raw}" (one of: ${EVENT_NAMES.join(', ')})`);
  }
  const event = raw as EventName;
  const problem = subjectProblem(event, subject);
  if (problem) throw new UsageError(problem);
  const status = (sale: Pick<Sale, 'id'> | { id: string }, to: string) =>
    sandbox(target, () =>
      api<Sale & { status: string }>(target, 'POST', `/api/sandbox/sales/${sale.id}/status`, { status: to }),
    );
  if (subject.sale && DISPUTE_EVENTS.includes(event)) {
    // a sale already in a dispute (an earlier `trigger dispute.opened --sale`): won or lost decides that one
    const open = await openDisputeOf(target, subject.sale);
    if (open) {
      if (event === 'dispute.opened') {
        throw new Error(
          `sale ${open.saleId} has an open dispute already (${open.id}): no dispute.opened happens (trigger dispute.won or dispute.lost --sale to decide it)`,
        );
      }
      await decide(target, open.id, event);
      return { event, sale: open.saleId, dispute: open.id };
    }
    const own = await moveOwnSale(target, subject.sale, ['PAGO'], status);
    return { event, sale: own, dispute: await dispute(target, own, event) };
  }
  if (subject.sale)
    return { event, sale: await moveOwnSale(target, subject.sale, SALE_MOVES[event]!, status, event) };
  if (subject.withdrawal)
    return { event, withdrawal: await settleWithdrawal(target, subject.withdrawal, event) };
  const newSale = (extra: object = {}) =>
    sandbox(target, () => api<Sale>(target, 'POST', '/api/sandbox/sales', { ...SALE, ...extra }));
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
    case 'sale.refunded': {
      const sale = await newSale();
      await status(sale, 'PAGO');
      await status(sale, 'ESTORNADO');
      return { event, sale: sale.uuid };
    }
    case 'sale.chargeback': {
      // a chargeback is a card's (a Pix sale's dispute is a MED): a card sale, captured, then charged back
      const sale = await cardSale(target);
      await status(sale, 'CHARGEBACK');
      return { event, sale: sale.uuid };
    }
    case 'dispute.opened':
    case 'dispute.won':
    case 'dispute.lost': {
      const sale = await newSale();
      await status(sale, 'PAGO');
      return { event, sale: sale.uuid, dispute: await dispute(target, sale.uuid, event) };
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
    case 'anticipation.paid':
    case 'anticipation.rejected': {
      const sale = await cardSale(target);
      const decided = await api<{ id: string }>(target, 'POST', '/api/sandbox/anticipations', {
        amountCents: 1,
        outcome: event === 'anticipation.paid' ? 'paid' : 'rejected',
      });
      return { event, sale: sale.uuid, anticipation: decided.id };
    }
    case 'subscription.created':
    case 'subscription.activated':
    case 'subscription.renewed':
    case 'subscription.past_due':
    case 'subscription.unpaid':
    case 'subscription.incomplete_expired':
    case 'subscription.canceled':
    case 'invoice.paid':
    case 'invoice.failed':
      return { event, subscription: await subscription(target, event) };
    default:
      return { event, ...(await withdrawal(target, event, newSale, status)) };
  }
}

/** A call to a sandbox route: a gateway without them (SANDBOX off) is said so, not left as a bare 404. */
async function sandbox<T>(target: Target, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (/answered 404: .*No route /.test((err as Error).message)) {
      throw new Error(
        `the gateway at ${target.url} has no sandbox routes (SANDBOX is off): nothing can be triggered there`,
      );
    }
    throw err;
  }
}

/** A sandbox card number (Luhn-valid, of Visa's range) ending in `last`: 0 approved, 2 refused. */
function sandboxCardNumber(last: '0' | '2'): string {
  for (;;) {
    const number = `4${Array.from({ length: 14 }, () => Math.floor(Math.random() * 10)).join('')}${last}`;
    if (luhnValid(number)) return number;
  }
}

/** A one-time token of a card (the public-key route). */
async function cardToken(target: Target, number: string): Promise<string> {
  const year = new Date().getUTCFullYear() + 1;
  const res = await fetch(`${target.url}/api/cards/tokens`, {
    method: 'POST',
    headers: { 'x-api-public-key': target.publicKey, 'content-type': 'application/json' },
    body: JSON.stringify({ number, holderName: 'MARIA SILVA', expMonth: 12, expYear: year, cvv: '731' }),
    signal: AbortSignal.timeout(30_000),
  });
  if (!res.ok) throw new Error(`POST /api/cards/tokens answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { token: string }).token;
}

interface TriggerCustomer {
  id: string;
  cards: { id: string; lastFour: string }[];
}

/**
 * The trigger's own buyer with a card on file that the sandbox approves and one it refuses: made by the first
 * run that needs them and found again by the later ones, so a run charges a saved card instead of tokenizing one.
 * A token per run met the card-testing limits after a few runs (`RISK_CARD_ATTEMPTS_PER_CARD` a card an hour,
 * `RISK_CARD_ATTEMPTS_PER_IP` a minute) and refused the next triggers for up to an hour.
 */
async function savedCards(target: Target): Promise<{ customer: string; approved: string; refused: string }> {
  const page = await api<{ data: (TriggerCustomer & { email: string })[] }>(
    target,
    'GET',
    '/api/customers?limit=100',
  );
  const customer =
    page.data.find((c) => c.email === TRIGGER_BUYER.email) ??
    (await api<TriggerCustomer>(target, 'POST', '/api/customers', TRIGGER_BUYER));
  const cardEnding = async (last: '0' | '2') =>
    customer.cards.find((c) => c.lastFour.endsWith(last))?.id ??
    (
      await api<{ id: string }>(target, 'POST', `/api/customers/${customer.id}/cards`, {
        token: await cardToken(target, sandboxCardNumber(last)),
      })
    ).id;
  return { customer: customer.id, approved: await cardEnding('0'), refused: await cardEnding('2') };
}

/**
 * A card subscription starting tomorrow (the scheduler leaves it alone today), charged through the sandbox's
 * advance as the event needs: its first period paid (activated), paid twice (renewed), refused at its first
 * period (invoice.failed) until it expires (incomplete_expired), a renewal refused (past_due) through every retry
 * (unpaid), or cancelled.
 */
async function subscription(target: Target, event: EventName): Promise<string> {
  const firstRefused = event === 'invoice.failed' || event === 'subscription.incomplete_expired';
  const renewalRefused = event === 'subscription.past_due' || event === 'subscription.unpaid';
  const cards = await savedCards(target);
  const plan = await api<{ id: string }>(target, 'POST', '/api/plans', {
    name: 'Plano de teste',
    amountCents: 5_000,
    interval: 'month',
    methods: ['CREDIT_CARD'],
  });
  const tomorrow = new Date(Date.now() + 86_400_000).toLocaleDateString('sv-SE', {
    timeZone: 'America/Sao_Paulo',
  });
  const sub = await api<{ id: string }>(target, 'POST', '/api/subscriptions', {
    customerId: cards.customer,
    planId: plan.id,
    paymentMethod: 'CREDIT_CARD',
    cardId: firstRefused ? cards.refused : cards.approved,
    startDate: tomorrow,
  });
  if (event === 'subscription.canceled') {
    await api(target, 'POST', `/api/subscriptions/${sub.id}/cancel`, {});
    return sub.id;
  }
  if (event === 'subscription.created') return sub.id;
  const advance = () =>
    api<{ status: string }>(target, 'POST', `/api/sandbox/subscriptions/${sub.id}/advance`);
  let state = await advance();
  if (event === 'subscription.renewed') await advance();
  if (renewalRefused) {
    await api(target, 'PATCH', `/api/subscriptions/${sub.id}`, { cardId: cards.refused });
    state = await advance();
  }
  // every retry, one an advance, until the subscription ends or stops being charged
  if (event === 'subscription.unpaid' || event === 'subscription.incomplete_expired') {
    for (let i = 0; i < 12 && state.status !== 'unpaid' && state.status !== 'incomplete_expired'; i++) {
      state = await advance();
    }
  }
  return sub.id;
}

/**
 * A card sale captured at once (its net becomes receivable installments), through the sandbox acquirer: the
 * trigger's buyer, charged on its approved card on file.
 */
async function cardSale(target: Target): Promise<Sale> {
  const cards = await savedCards(target);
  return api<Sale>(target, 'POST', '/api/transactions', {
    ...SALE,
    customer: TRIGGER_BUYER,
    paymentMethod: 'CREDIT_CARD',
    installments: 2,
    card: { cardId: cards.approved },
  });
}

/** A dispute of a PAGO sale (a chargeback of a card sale, a MED of a Pix one), decided as the event says. */
async function dispute(target: Target, saleUuid: string, event: EventName): Promise<string> {
  const sale = await api<{ paymentMethod: string }>(target, 'GET', `/api/transactions/${saleUuid}`);
  const kind = sale.paymentMethod.endsWith('_CARD') ? 'chargeback' : 'med';
  const opened = await api<{ id: string }>(target, 'POST', `/api/sandbox/sales/${saleUuid}/dispute`, {
    kind,
  });
  if (event !== 'dispute.opened') await decide(target, opened.id, event);
  return opened.id;
}

/** The acquirer's or PSP's verdict on a dispute, as the event says. */
async function decide(target: Target, disputeId: string, event: EventName): Promise<void> {
  await api(target, 'POST', `/api/sandbox/disputes/${disputeId}/outcome`, {
    outcome: event === 'dispute.won' ? 'won' : 'lost',
  });
}

/** The caller's sale's dispute still open (CHARGEBACK or MED, awaiting its verdict), if it has one. */
async function openDisputeOf(target: Target, id: string): Promise<{ id: string; saleId: string } | null> {
  const sale = await api<{ uuid: string; status: string }>(
    target,
    'GET',
    `/api/transactions/${encodeURIComponent(id)}`,
  );
  if (sale.status !== 'MED' && sale.status !== 'CHARGEBACK') return null;
  const page = await api<{ data: { id: string; saleId: string; status: string }[] }>(
    target,
    'GET',
    `/api/disputes?saleId=${encodeURIComponent(sale.uuid)}`,
  );
  return page.data.find((d) => !CLOSED_DISPUTE.has(d.status)) ?? null;
}

const CLOSED_DISPUTE = new Set(['won', 'lost', 'accepted']);

/** A funded withdrawal, brought to the event's status. */
async function withdrawal(
  target: Target,
  event: EventName,
  newSale: () => Promise<Sale>,
  status: (sale: Sale, to: string) => Promise<Sale>,
): Promise<{ sale: string; withdrawal: string }> {
  const funding = await newSale();
  await status(funding, 'PAGO');
  const w = await api<Withdrawal>(target, 'POST', '/api/public/cashout', {
    amount: '100.00',
    pixKey: '52998224725',
    pixKeyType: 'CPF',
  });
  if (w.approval?.status === 'awaiting' && event !== 'withdrawal.canceled') {
    // a second person must approve it first, which no key can do: given back rather than left blocked
    await api(target, 'POST', `/api/sandbox/cashouts/${w.uuid}/cancel`);
    throw new Error(
      `this account asks a second person to approve withdrawals from an amount it sets, and this trigger's withdrawal of R$ 100,00 is one of them: withdrawal ${w.uuid} could not reach ${event}, so it was cancelled and its money is available again (its approvers were told of it by e-mail). Raise the approval threshold above R$ 100,00 in the panel, or approve a withdrawal there and pass it with --withdrawal`,
    );
  }
  // withdrawal.pending is its sending to the provider: the payout worker does it within moments
  if (event === 'withdrawal.pending') await sentToProvider(target, w.uuid);
  else await settleWithdrawal(target, w.uuid, event);
  return { sale: funding.uuid, withdrawal: w.uuid };
}

/**
 * The caller's sale through the event's statuses, skipping those it has passed (a paid sale is refunded at once).
 * A sale event (`event`) whose status the sale already has is refused: the sandbox leaves a sale in the status
 * it has as it is, so nothing would happen and no event would come.
 */
async function moveOwnSale(
  target: Target,
  id: string,
  steps: string[],
  status: (sale: { id: string }, to: string) => Promise<Sale & { status: string }>,
  event?: EventName,
): Promise<string> {
  const now = await api<Sale & { status: string; paymentMethod: string }>(
    target,
    'GET',
    `/api/transactions/${encodeURIComponent(id)}`,
  );
  // sale.chargeback of a Pix sale is its mediation: MED (a chargeback is a card's)
  const path =
    steps.at(-1) === 'CHARGEBACK' && !now.paymentMethod.endsWith('_CARD')
      ? [...steps.slice(0, -1), 'MED']
      : steps;
  if (event && now.status === path[path.length - 1]) {
    throw new Error(
      `sale ${now.uuid} is already ${now.status}: no ${event} happens (give a sale that is not ${now.status} yet, or trigger ${event} without --sale)`,
    );
  }
  for (const [i, to] of path.entries()) {
    if (i < path.length - 1 && now.status === to) continue;
    await status({ id: encodeURIComponent(id) }, to);
  }
  return now.uuid;
}

/** A withdrawal settled as the event says, through the sandbox payout provider's routes. */
async function settleWithdrawal(target: Target, id: string, event: EventName): Promise<string> {
  const path = `/api/sandbox/cashouts/${encodeURIComponent(id)}`;
  if (event === 'withdrawal.canceled') {
    // refused (409) only for the moments the payout worker is sending it: then it is PROCESSING, and the
    // sandbox provider gives it up
    for (let attempt = 0; ; attempt++) {
      try {
        await api(target, 'POST', `${path}/cancel`);
        break;
      } catch (err) {
        if (!/answered 409/.test((err as Error).message) || attempt >= 50) throw err;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  } else {
    await sentToProvider(target, id);
    await api(target, 'POST', `${path}/result`, {
      result: event === 'withdrawal.completed' ? 'COMPLETED' : 'REJECTED',
    });
  }
  return (await api<Withdrawal>(target, 'GET', `/api/public/cashout/${encodeURIComponent(id)}`)).uuid;
}

/** withdrawal.pending is its sending to the provider: the gateway's payout worker does it within moments. */
async function sentToProvider(target: Target, id: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const now = await api<Withdrawal>(target, 'GET', `/api/public/cashout/${encodeURIComponent(id)}`);
    if (now.status === 'PROCESSING') return;
    if (now.status !== 'PENDING') throw new Error(`withdrawal ${id} is ${now.status}`);
    if (Date.now() > deadline) {
      throw new Error(
        `withdrawal ${id} is still PENDING after 30 s: is a worker running with PAYOUT_PROVIDER=sandbox?`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
