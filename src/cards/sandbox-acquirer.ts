import { randomUUID } from 'node:crypto';
import { GroupCommit } from '../platform/concurrency/group-commit.js';
import type { Queryable } from '../platform/db/db.js';
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

/**
 * CARD_ACQUIRER=sandbox: a token of its own for every card (the outcome its last digit asks for, never the
 * digits), the card forgotten at once; its payments kept in PostgreSQL (`sandbox_acquirer_payments`), so every
 * process (the API's, a separate worker's) and a restart see the same ones. Each change is one conditional
 * statement, as an acquirer would apply it: two captures or voids of one payment never both succeed.
 */
export class SandboxAcquirer implements Acquirer {
  readonly name = 'sandbox';

  /**
   * The payments authorized together, written by one statement (group commit: at rest, those asked for in one
   * turn of the event loop are written together on the next; a statement that fails is run again payment by
   * payment).
   */
  private readonly writes = new GroupCommit<NewPayment, PaymentRow>(
    async (payments) => {
      const rows = await this.db.query<PaymentRow>(
        `INSERT INTO sandbox_acquirer_payments
           (payment_id, order_id, state, amount_cents, captured_cents, return_code, return_message)
         SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::bigint[], $5::bigint[], $6::text[], $7::text[])
         RETURNING ${COLUMNS}`,
        [
          payments.map((p) => p.paymentId),
          payments.map((p) => p.orderId),
          payments.map((p) => p.state),
          payments.map((p) => p.amountCents),
          payments.map((p) => p.capturedCents),
          payments.map((p) => p.returnCode),
          payments.map((p) => p.returnMessage),
        ],
        { prepare: 'sandbox_acquirer_authorized_v1' },
      );
      const byId = new Map(rows.map((r) => [r.payment_id, r]));
      return payments.map((p) => byId.get(p.paymentId) ?? new Error('sandbox payment not written'));
    },
    // a second statement starts beside a running one only once 16 payments wait (or 10 ms after the first):
    // the statement's cost hardly depends on how many it writes
    { maxBatch: 64, parallel: 2, minBesideRunning: 16, maxWaitBesideMs: 10, retryAlone: true },
  );

  constructor(private readonly db: Queryable) {}

  async tokenize(card: CheckedCard): Promise<{ acquirerToken: string }> {
    const outcome = OUTCOME_BY_LAST_DIGIT[card.number.slice(-1)] ?? 'ok';
    return { acquirerToken: `sandbox-${outcome}-${randomUUID()}` };
  }

  async authorize(request: AuthorizeRequest): Promise<AcquirerPayment> {
    const outcome = /^sandbox-([a-z0-9]+)-/.exec(request.acquirerToken)?.[1] ?? 'ok';
    if (outcome === 'timeout')
      throw new AcquirerUnavailable('The sandbox acquirer did not answer (test card)');
    const denied = outcome !== 'ok';
    const row = await this.writes.submit({
      paymentId: randomUUID(),
      orderId: request.merchantOrderId,
      state: denied ? 'denied' : request.capture ? 'captured' : 'authorized',
      amountCents: request.amountCents,
      capturedCents: !denied && request.capture ? request.amountCents : 0,
      returnCode: denied ? outcome : '4',
      returnMessage: denied ? (SANDBOX_REFUSALS[outcome] ?? 'Não Autorizada') : 'Operation Successful',
    });
    return paymentOf(row);
  }

  async capture(paymentId: string, amountCents: number): Promise<AcquirerPayment> {
    const [row] = await this.db.query<PaymentRow>(
      `UPDATE sandbox_acquirer_payments SET state = 'captured', captured_cents = $2
        WHERE payment_id = $1 AND state = 'authorized' AND amount_cents >= $2 RETURNING ${COLUMNS}`,
      [asUuid(paymentId), amountCents],
    );
    if (!row) throw new AcquirerRefused('The sandbox acquirer cannot capture this payment');
    return paymentOf(row);
  }

  async cancel(paymentId: string, amountCents: number): Promise<AcquirerPayment> {
    const [row] = await this.db.query<PaymentRow>(
      `UPDATE sandbox_acquirer_payments
          SET voided_cents = voided_cents + $2,
              state = CASE WHEN ${VOIDABLE} - voided_cents - $2 = 0 THEN 'voided' ELSE state END
        WHERE payment_id = $1 AND state IN ('authorized', 'captured') AND ${VOIDABLE} - voided_cents - $2 >= 0
        RETURNING ${COLUMNS}`,
      [asUuid(paymentId), amountCents],
    );
    if (!row) throw new AcquirerRefused('The sandbox acquirer cannot cancel this payment (or not that much)');
    return paymentOf(row);
  }

  async findByOrderId(merchantOrderId: string): Promise<AcquirerPayment | null> {
    const [row] = await this.db.query<PaymentRow>(
      `SELECT ${COLUMNS} FROM sandbox_acquirer_payments WHERE order_id = $1 ORDER BY created_at LIMIT 1`,
      [asUuid(merchantOrderId)],
    );
    return row ? paymentOf(row) : null;
  }

  async close(): Promise<void> {}
}

/** What a void may still return: the captured amount once captured, else the authorization. */
const VOIDABLE = `(CASE WHEN state = 'captured' THEN captured_cents ELSE amount_cents END)`;
const COLUMNS = `payment_id::text AS payment_id, state, amount_cents, captured_cents, voided_cents, return_code,
  return_message`;

interface NewPayment {
  paymentId: string;
  orderId: string;
  state: PaymentRow['state'];
  amountCents: number;
  capturedCents: number;
  returnCode: string;
  returnMessage: string;
}

interface PaymentRow {
  payment_id: string;
  state: 'authorized' | 'captured' | 'denied' | 'voided';
  amount_cents: number;
  captured_cents: number;
  voided_cents: number;
  return_code: string | null;
  return_message: string | null;
}

/** An id that is no uuid is one the sandbox never issued (it matches nothing). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const asUuid = (id: string) => (UUID.test(id) ? id : '00000000-0000-0000-0000-000000000000');

function paymentOf(r: PaymentRow): AcquirerPayment {
  return {
    paymentId: r.payment_id,
    state: r.state,
    amountCents: Number(r.amount_cents),
    capturedCents: Number(r.captured_cents),
    voidedCents: Number(r.voided_cents),
    returnCode: r.return_code,
    returnMessage: r.return_message,
  };
}
