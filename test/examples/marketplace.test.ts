/**
 * The example marketplaces, each run as its README line says (npm run example:marketplace, npm run
 * example:marketplace-python) against a real gateway: a recipient, a split card sale in installments, a partial
 * refund whose allocation the script reads, a split subscription paid in the sandbox, and the recipient's cashout
 * completed by the sandbox's payout provider. What they print is checked against what the gateway then holds.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import { type Running, spawnCollecting } from '../support/snippets.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
let server: TestServer;
const running: Running[] = [];

beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  for (const r of running) r.stop();
  await server?.close();
});

describe.each([
  { name: 'examples/marketplace (TypeScript)', script: 'example:marketplace' },
  { name: 'examples/marketplace-python', script: 'example:marketplace-python' },
])('$name', ({ script }) => {
  it('recipient → split card sale in 3 installments → partial refund and who paid → split subscription → the seller paid out', async () => {
    const merchant = await createMerchant(server, 'Marketplace');
    const run = spawnCollecting('npm', ['run', '--silent', script], {
      cwd: ROOT,
      env: {
        ...process.env,
        GATEWAY_URL: server.url,
        GATEWAY_PUBLIC_KEY: merchant.publicKey,
        GATEWAY_PRIVATE_KEY: merchant.privateKey,
        PYTHONDONTWRITEBYTECODE: '1',
      },
    });
    running.push(run);
    const code = await run.exited;
    const out = run.out.join('\n');
    expect(code, out).toBe(0);

    const sellerId =
      /^seller (\S+) \(Ateliê da Ana\); card sale ([0-9a-f-]{36}): PAGO, 3 installments$/m.exec(out);
    expect(sellerId, out).not.toBeNull();
    const [, recipientId, saleUuid] = sellerId!;
    // the refund as the script printed it is the refund the gateway keeps
    const refunds = await call<
      {
        amountCents: number;
        feeReturnedCents: number;
        allocation: { party: string; amountCents: number; fromReceivableCents: number }[];
      }[]
    >('GET', `${server.url}/api/transactions/${saleUuid}/refunds`, { headers: merchant.keys });
    expect(refunds.body).toHaveLength(1);
    const [refund] = refunds.body;
    expect(refund!.amountCents).toBe(6000);
    const seller = refund!.allocation.find((p) => p.party === recipientId)!;
    expect(seller.fromReceivableCents).toBeGreaterThan(0);
    const brl = (cents: number) =>
      `R\\$\\s?${Math.floor(cents / 100)},${String(cents % 100).padStart(2, '0')}`;
    expect(out).toMatch(
      new RegExp(`refund R\\$\\s?60,00: seller ${recipientId} paid ${brl(seller.amountCents)}`),
    );
    expect(out).toMatch(new RegExp(`the gateway gave back ${brl(refund!.feeReturnedCents)} of its fee`));
    expect(refund!.allocation.reduce((s, p) => s + p.amountCents, 0) + refund!.feeReturnedCents).toBe(6000);

    // the seller's month, and its withdrawal completed by the sandbox's payout provider
    expect(out).toMatch(/the seller gets R\$\s?139,30 of each month/);
    const withdrawals = await call<{ data: { uuid: string; status: string }[] }>(
      'GET',
      `${server.url}/api/recipients/${recipientId}/withdrawals`,
      { headers: merchant.keys },
    );
    expect(withdrawals.status, withdrawals.text).toBe(200);
    expect(withdrawals.body.data).toHaveLength(1);
    expect(withdrawals.body.data[0]!.status).toBe('COMPLETED');
    expect(out).toContain(`seller withdrawal ${withdrawals.body.data[0]!.uuid}: COMPLETED`);
    const balance = await call<{ available: number }>(
      'GET',
      `${server.url}/api/recipients/${recipientId}/balance`,
      {
        headers: merchant.keys,
      },
    );
    expect(balance.body.available).toBe(0);
  });
});
