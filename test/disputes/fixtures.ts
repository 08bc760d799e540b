import { expect } from 'vitest';
import { updateAccount } from '../../src/accounts/accounts.js';
import { Disputes } from '../../src/disputes/disputes.js';
import { readMedNotices } from '../../src/disputes/med-notices.js';
import { getBalance } from '../../src/ledger/ledger.js';
import { PixApiClient } from '../../src/payment-standards/pix-api-client.js';
import { moveTo, sandboxSale } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import type { TestServer } from '../support/server.js';

export interface DisputeBody {
  id: string;
  saleId: string;
  kind: 'chargeback' | 'med';
  status: string;
  amountCents: number;
  reason: string | null;
  respondBy: string;
  evidence: { id: string; name: string; contentType: string; size: number }[];
  createdAt: string;
  closedAt: string | null;
}

/** A merchant with a 3% sale fee and no reserve unless given, no cashout fee. */
export async function disputeMerchant(
  server: TestServer,
  fees: { percent?: number; reserve?: number } = {},
): Promise<TestMerchant> {
  const m = await createMerchant(server);
  await updateAccount(server.runtime.platform.db, m.accountId, {
    saleFeePercentE4: fees.percent ?? 30000,
    saleFeeFixed: 0,
    reservePercentE4: fees.reserve ?? 0,
    cashoutFeeFixed: 0,
    cashoutFeePercentE4: 0,
  });
  return m;
}

/** A PAGO sale of `amount` cents (PIX unless told). */
export async function paidSale(
  server: TestServer,
  m: TestMerchant,
  amount = 10000,
  paymentMethod = 'PIX',
): Promise<{ id: number; uuid: string; netAmount: number }> {
  const extra = paymentMethod.endsWith('_CARD') ? { card: { brand: 'visa', lastFour: '4242' } } : {};
  const sale = await sandboxSale(server, m, {
    amount,
    paymentMethod,
    items: [{ title: 'Curso online', unitPrice: amount, quantity: 1, tangible: false }],
    ...extra,
  });
  const paid = await moveTo(server, m, sale.uuid, 'PAGO');
  expect(paid.status, paid.text).toBe(200);
  return { id: sale.id, uuid: sale.uuid, netAmount: paid.body.netAmount };
}

export function openDispute(
  server: TestServer,
  m: TestMerchant,
  saleId: string | number,
  body: Record<string, unknown>,
) {
  return call<DisputeBody>('POST', `${server.url}/api/sandbox/sales/${saleId}/dispute`, {
    headers: m.keys,
    body,
  });
}

export function decide(server: TestServer, m: TestMerchant, disputeId: string, outcome: string) {
  return call<DisputeBody>('POST', `${server.url}/api/sandbox/disputes/${disputeId}/outcome`, {
    headers: m.keys,
    body: { outcome },
  });
}

export const balanceOf = (server: TestServer, m: TestMerchant) =>
  getBalance(server.runtime.platform.db, m.accountId);

/**
 * The MED worker's read of the PSP's infractions (Efí's GET /v2/gn/infracoes), run on demand against a gateway
 * started with PIX_PROCESSOR=bcb: the last day and the next minute. `client` is the PSP's, for other calls.
 */
export function medNoticeReader(server: TestServer) {
  const { db, queue, config } = server.runtime.platform;
  const client = new PixApiClient(config.bcb!);
  const disputes = new Disputes(db, queue, { queue, key: config.secretsKey }, config.publicUrl);
  return {
    client,
    disputes,
    read: () =>
      readMedNotices(db, disputes, (path) => client.call('GET', path), {
        from: new Date(Date.now() - 86_400_000),
        to: new Date(Date.now() + 60_000),
      }),
    close: () => client.close(),
  };
}
