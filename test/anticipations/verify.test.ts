import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyLedger } from '../../src/ledger/verify.js';
import { runGateway } from '../support/cli.js';
import { call } from '../support/http.js';
import { createOperator } from '../support/operators.js';
import { startServer, type TestServer } from '../support/server.js';
import { anticipatingMerchant, cardSale, plusDays } from './fixtures.js';

let server: TestServer;
const db = () => server.runtime.platform.db;

beforeAll(async () => {
  server = await startServer({
    workers: false,
    env: { CARD_SETTLEMENT_DAYS: '30', ANTICIPATION_AUTO_APPROVE: 'on' },
  });
});
afterAll(() => server?.close());

describe('gateway ledger verify and anticipations', () => {
  it('passes with paid anticipations, and names one whose installments no longer match what it took', async () => {
    const m = await anticipatingMerchant(server, await createOperator(server, 'finance'));
    await cardSale(server, m, 30000, 3);
    const paid = await call<{ id: string; status: string }>('POST', `${server.url}/api/anticipations`, {
      headers: m.keys,
      body: { upTo: plusDays(60) },
    });
    expect(paid.body.status).toBe('paid');
    const ok = await runGateway(['ledger', 'verify', '--json'], server.env);
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ ok: true, problems: [] });

    // one of its installments let go of behind the ledger's back (still settled: the bucket check holds)
    const [row] = await db().query<{ id: string }>('SELECT id FROM anticipations WHERE uuid = $1', [
      paid.body.id,
    ]);
    await db().query(
      `UPDATE receivables SET anticipation_id = NULL
        WHERE id = (SELECT min(id) FROM receivables WHERE anticipation_id = $1)`,
      [row!.id],
    );
    const report = await verifyLedger(db());
    expect(report.problems).toEqual([
      { kind: 'anticipation_mismatch', anticipationId: Number(row!.id), expected: 10000, actual: 20000 },
    ]);
    const text = await runGateway(['ledger', 'verify'], server.env);
    expect(text.code).not.toBe(0);
    expect(text.stdout + text.stderr).toMatch(
      /anticipation \d+ took 20000 from receivable but its installments sum to 10000/,
    );
  });
});
