import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DevAcquirer } from '../../src/devacquirer/index.js';
import {
  approvedCard,
  type BenchServer,
  benchMerchant,
  CARD_SALE,
  DURATION,
  measureAround,
  printRow,
  WARMUP,
} from '../lib.js';

/** The local Cielo the gateway authorizes against, started before the gateway so its settings can be given. */
const acquirer = new DevAcquirer();
await acquirer.start();

const caFile = path.join(mkdtempSync(path.join(tmpdir(), 'bench-acquirer-')), 'ca.pem');
writeFileSync(caFile, acquirer.ca);

export const serverEnv = {
  CARD_ACQUIRER: 'cielo',
  CIELO_CA_FILE: caFile,
  CIELO_MERCHANT_ID: acquirer.merchantId,
  CIELO_MERCHANT_KEY: acquirer.merchantKey,
  CIELO_API_URL: acquirer.url,
  CIELO_QUERY_URL: acquirer.url,
};

/**
 * Card sales (POST /api/transactions, CREDIT_CARD, authorized and captured at the local Cielo over HTTP: a
 * token used, the sale stored, the acquirer asked, the sale moved to PAGO with its ledger entry and
 * receivables) per second, against PIX charges (POST /api/transactions, PIX, the sandbox processor) in the same
 * run. Each card sale needs a token of its own, made beforehand (POST /api/cards/tokens, not measured).
 */
export async function run(server: BenchServer): Promise<void> {
  try {
    const merchant = await benchMerchant(server.db);
    const needed = Math.ceil((WARMUP + DURATION) * Number(process.env.BENCH_CARD_RATE ?? 600));
    const tokens: string[] = [];
    const number = approvedCard();
    while (tokens.length < needed) {
      const batch = await Promise.all(
        Array.from({ length: 50 }, async () => {
          const res = await fetch(`${server.url}/api/cards/tokens`, {
            method: 'POST',
            headers: {
              'x-api-public-key': merchant.keys['x-api-public-key']!,
              'content-type': 'application/json',
            },
            body: JSON.stringify({
              number,
              holderName: 'BENCH BUYER',
              expMonth: 12,
              expYear: 2035,
              cvv: '123',
            }),
          });
          if (res.status !== 201) throw new Error(`tokenizing answered ${res.status}`);
          return ((await res.json()) as { token: string }).token;
        }),
      );
      tokens.push(...batch);
    }
    const headers = { ...merchant.keys, 'content-type': 'application/json' };
    const pix = JSON.stringify({ ...CARD_SALE, paymentMethod: 'PIX' });
    let next = 0;
    const { target, baseline } = await measureAround(
      { url: `${server.url}/api/transactions`, method: 'POST', headers, body: pix },
      {
        url: `${server.url}/api/transactions`,
        method: 'POST',
        headers,
        requests: [
          {
            method: 'POST',
            setupRequest: (req) => ({
              ...req,
              body: JSON.stringify({
                ...CARD_SALE,
                paymentMethod: 'CREDIT_CARD',
                installments: 3,
                card: { token: tokens[next++ % tokens.length] },
              }),
            }),
          },
        ],
      },
    );
    printRow({
      name: 'POST /api/transactions CREDIT_CARD: card sales authorized and captured at the local Cielo (dev-acquirer)',
      target,
      baselineName: 'POST /api/transactions PIX: PIX charges (sandbox processor), mean of before and after',
      baseline,
      goal: 0.3,
      unit: 'card authorizations',
    });
    if (next > tokens.length) {
      console.log(`  (${next - tokens.length} requests reused a spent token: raise BENCH_CARD_RATE)`);
    }
  } finally {
    await acquirer.close();
  }
}
