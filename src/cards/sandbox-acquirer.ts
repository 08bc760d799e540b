import { randomUUID } from 'node:crypto';
import type { Acquirer, AcquirerPayment, AuthorizeRequest } from './acquirer.js';
import type { CheckedCard } from './card-checks.js';
import { AcquirerRefused, AcquirerUnavailable } from './errors.js';

/**
 * What the sandbox does with a card, by its last digit (Cielo's sandbox convention, docs/decisions.md "Cards"):
 * 0, 1, 4, 9 approved; 2, 3, 5, 7, 8 denied with Cielo's return code and message; 6 never answers.
 */
const OUTCOME_BY_LAST_DIGIT: Record<string, string> = {
  '0': 'ok',
  '1': 'ok',
  '4': 'ok',
  '9': 'ok',
  '2': '05',
  '3': '57',
  '5': '78',
  '7': '77',
  '8': '70',
  '6': 'timeout',
};

export const SANDBOX_REFUSALS: Record<string, string> = {
  '05': 'Não Autorizada',
  '57': 'Cartão Expirado',
  '78': 'Cartão Bloqueado',
  '77': 'Cartão Cancelado',
  '70': 'Problemas com o Cartão de Crédito',
};

const PAYMENTS = new Map<string, AcquirerPayment & { orderId: string }>();

/**
 * CARD_ACQUIRER=sandbox: a token of its own for every card (the outcome its last digit asks for, never the
 * digits), the card forgotten at once; payments kept in this process's memory.
 */
export class SandboxAcquirer implements Acquirer {
  readonly name = 'sandbox';
  // one process's memory, shared by its instances (the routes' and the workers')
  private readonly payments = PAYMENTS;

  async tokenize(card: CheckedCard): Promise<{ acquirerToken: string }> {
    const outcome = OUTCOME_BY_LAST_DIGIT[card.number.slice(-1)] ?? 'ok';
    return { acquirerToken: `sandbox-${outcome}-${randomUUID()}` };
  }

  async authorize(request: AuthorizeRequest): Promise<AcquirerPayment> {
    const outcome = /^sandbox-([a-z0-9]+)-/.exec(request.acquirerToken)?.[1] ?? 'ok';
    if (outcome === 'timeout')
      throw new AcquirerUnavailable('The sandbox acquirer did not answer (test card)');
    const denied = outcome !== 'ok';
    const payment = {
      orderId: request.merchantOrderId,
      paymentId: randomUUID(),
      state: denied ? 'denied' : request.capture ? 'captured' : 'authorized',
      amountCents: request.amountCents,
      capturedCents: !denied && request.capture ? request.amountCents : 0,
      voidedCents: 0,
      returnCode: denied ? outcome : '4',
      returnMessage: denied ? (SANDBOX_REFUSALS[outcome] ?? 'Não Autorizada') : 'Operation Successful',
    } as const;
    this.payments.set(payment.paymentId, { ...payment });
    return strip(payment);
  }

  async capture(paymentId: string, amountCents: number): Promise<AcquirerPayment> {
    const payment = this.payments.get(paymentId);
    if (payment?.state !== 'authorized' || amountCents > payment.amountCents) {
      throw new AcquirerRefused('The sandbox acquirer cannot capture this payment');
    }
    Object.assign(payment, { state: 'captured', capturedCents: amountCents });
    return strip(payment);
  }

  async cancel(paymentId: string, amountCents: number): Promise<AcquirerPayment> {
    const payment = this.payments.get(paymentId);
    if (!payment || (payment.state !== 'authorized' && payment.state !== 'captured')) {
      throw new AcquirerRefused('The sandbox acquirer cannot cancel this payment');
    }
    const voidable = payment.state === 'captured' ? payment.capturedCents : payment.amountCents;
    const left = voidable - payment.voidedCents - amountCents;
    if (left < 0) throw new AcquirerRefused('The sandbox acquirer cannot cancel more than the payment');
    payment.voidedCents += amountCents;
    if (left === 0) payment.state = 'voided';
    return strip(payment);
  }

  async findByOrderId(merchantOrderId: string): Promise<AcquirerPayment | null> {
    for (const payment of this.payments.values()) {
      if (payment.orderId === merchantOrderId) return strip(payment);
    }
    return null;
  }

  async close(): Promise<void> {}
}

function strip({ orderId: _, ...payment }: AcquirerPayment & { orderId: string }): AcquirerPayment {
  return { ...payment };
}
