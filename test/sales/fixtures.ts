import { expect } from 'vitest';
import type { TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import type { TestServer } from '../support/server.js';

export const CUSTOMER = {
  name: 'Maria Silva',
  email: 'maria@example.com',
  document: '52998224725',
  phone: '5511987654321',
};

export interface SaleBody {
  id: number;
  uuid: string;
  status: string;
  amount: number;
  netAmount: number;
  systemFee: number;
  reserveAmount: number;
  paymentMethod: string;
  date: string;
  completedAt: string | null;
  customer: typeof CUSTOMER;
  items: { id: number; title: string; unitPrice: number; quantity: number; tangible: boolean }[];
  pixKey: string | null;
  cardLastFour: string | null;
  cardBrand: string | null;
  boletoCode: string | null;
  externalTransactionId: string;
  installments: number | null;
  shipping: Record<string, unknown> | null;
  idRec?: string;
  contrato?: string;
}

export function saleInput(overrides: Record<string, unknown> = {}) {
  return {
    amount: 10000,
    paymentMethod: 'PIX',
    customer: CUSTOMER,
    items: [{ title: 'Curso online', unitPrice: 10000, quantity: 1, tangible: false }],
    ...overrides,
  };
}

export async function sandboxSale(
  server: TestServer,
  merchant: TestMerchant,
  overrides: Record<string, unknown> = {},
): Promise<SaleBody> {
  const res = await call<SaleBody>('POST', `${server.url}/api/sandbox/sales`, {
    headers: merchant.keys,
    body: saleInput(overrides),
  });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/** A PIX charge of `amount` cents through POST /api/transactions (its processor's, e.g. the local PSP's). */
export async function pixCharge(
  server: TestServer,
  merchant: TestMerchant,
  amount: number,
): Promise<SaleBody> {
  const res = await call<SaleBody>('POST', `${server.url}/api/transactions`, {
    headers: merchant.keys,
    body: saleInput({ amount, items: [{ title: 'Curso', unitPrice: amount, quantity: 1, tangible: false }] }),
  });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

export async function moveTo(
  server: TestServer,
  merchant: TestMerchant,
  id: string | number,
  status: string,
) {
  return call<SaleBody>('POST', `${server.url}/api/sandbox/sales/${id}/status`, {
    headers: merchant.keys,
    body: { status },
  });
}

export interface EventRow {
  id: string;
  event_type: string;
  subject_type: string;
  subject_id: number;
  webhook_body: string;
  postback_url: string | null;
  postback_body: string | null;
}

export async function eventsOf(
  server: TestServer,
  subjectType: string,
  subjectId: number,
): Promise<EventRow[]> {
  return server.runtime.platform.db.query<EventRow>(
    `SELECT id, event_type, subject_type, subject_id, webhook_body, postback_url, postback_body
       FROM notification_events WHERE subject_type = $1 AND subject_id = $2 ORDER BY created_at, id`,
    [subjectType, subjectId],
  );
}
