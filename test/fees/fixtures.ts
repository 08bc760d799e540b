import { expect } from 'vitest';
import { cardBody, cardEnding } from '../cards/cards.js';
import { saleInput } from '../sales/fixtures.js';
import type { TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import type { TestOperator } from '../support/operators.js';
import type { TestServer } from '../support/server.js';

export interface PlanBody {
  name: string;
  pixPercent: string;
  pixFixedCents: number;
  boletoFixedCents: number;
  creditPercent: { '1': string; '2-6': string; '7-12': string };
  debitPercent: string;
  anticipationMonthlyPercent: string;
  cashoutFixedCents: number;
}

export const planBody = (name: string, extra: Partial<PlanBody> = {}): PlanBody => ({
  name,
  pixPercent: '0.99',
  pixFixedCents: 10,
  boletoFixedCents: 349,
  creditPercent: { '1': '3.49', '2-6': '4.29', '7-12': '4.99' },
  debitPercent: '1.99',
  anticipationMonthlyPercent: '3',
  cashoutFixedCents: 150,
  ...extra,
});

/** A plan created by a finance operator, and the account put on it. */
export async function planFor(
  server: TestServer,
  finance: TestOperator,
  merchant: TestMerchant | null,
  body: PlanBody,
): Promise<number> {
  const created = await call<{ id: number }>('POST', `${server.url}/api/ops/fee-plans`, {
    headers: finance.ops,
    body,
  });
  expect(created.status, created.text).toBe(201);
  if (merchant) {
    const assigned = await call('POST', `${server.url}/api/ops/accounts/${merchant.accountId}/fee-plan`, {
      headers: finance.ops,
      body: { planId: created.body.id },
    });
    expect(assigned.status, assigned.text).toBe(200);
  }
  return created.body.id;
}

/** A card sale through the sandbox acquirer (captured at once: PAGO, its net in receivable). */
export async function cardSale(
  server: TestServer,
  merchant: TestMerchant,
  amount: number,
  installments: number,
  paymentMethod: 'CREDIT_CARD' | 'DEBIT_CARD' = 'CREDIT_CARD',
) {
  const tok = await call<{ token: string }>('POST', `${server.url}/api/cards/tokens`, {
    headers: { 'x-api-public-key': merchant.publicKey },
    body: cardBody(cardEnding('0')),
  });
  expect(tok.status, tok.text).toBe(201);
  const res = await call<{ id: number; uuid: string; status: string; systemFee: number; netAmount: number }>(
    'POST',
    `${server.url}/api/transactions`,
    {
      headers: merchant.keys,
      body: saleInput({ amount, paymentMethod, installments, card: { token: tok.body.token } }),
    },
  );
  expect(res.status, res.text).toBe(201);
  return res.body;
}
