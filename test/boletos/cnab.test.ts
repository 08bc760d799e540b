import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cut } from '../../src/boletos/cnab240.js';
import { importRetorno, type Liquidacao } from '../../src/boletos/retorno.js';
import { getBalance } from '../../src/ledger/ledger.js';
import { verifyLedger } from '../../src/ledger/verify.js';
import { addDays } from '../../src/platform/time/calendar.js';
import { fromSaoPaulo } from '../../src/platform/time/sao-paulo.js';
import { eventsOf, moveTo } from '../sales/fixtures.js';
import { runGateway } from '../support/cli.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import { retornoFile } from './cnab-files.js';
import {
  type BoletoSaleBody,
  backdate,
  boletoInput,
  DUE,
  lastSaturday,
  nextSaturday,
  pastDue,
  spDay,
} from './fixtures.js';

let server: TestServer;
let merchant: TestMerchant;
const dir = mkdtempSync(path.join(tmpdir(), 'gw-cnab-'));
const db = () => server.runtime.platform.db;
const settings = () => server.runtime.platform.config.boleto;
const env = () => ({ DATABASE_URL: server.databaseUrl, DATA_DIR: server.env.DATA_DIR! });

const METRICS_TOKEN = 'cnab-metrics-token';

beforeAll(async () => {
  server = await startServer({ workers: false, env: { METRICS_TOKEN } });
  merchant = await createMerchant(server);
});
afterAll(() => server?.close());

const issue = async (terms: Record<string, unknown> = {}) => {
  const res = await call<BoletoSaleBody>('POST', `${server.url}/api/transactions`, {
    headers: merchant.keys,
    body: boletoInput(
      { amount: 10000 },
      { finePercent: '2.00', monthlyInterestPercent: '1.00', daysAfterDue: 10, ...terms },
    ),
  });
  expect(res.status, res.text).toBe(201);
  return res.body;
};
const statusOf = async (id: number) =>
  (
    await db().query<{ status: string; paid_amount: number | null }>(
      'SELECT status, paid_amount FROM sales WHERE id = $1',
      [id],
    )
  )[0]!;

async function importFile(name: string, content: string) {
  const file = path.join(dir, name);
  writeFileSync(file, content, 'latin1');
  const res = await runGateway(['boletos', 'retorno', file, '--json'], env());
  return { ...res, json: JSON.parse(res.stdout) };
}

describe('gateway boletos retorno (CNAB 240, segments T and U)', () => {
  it('credits each liquidação once by nosso número; repeats, unknown numbers and wrong amounts credit nothing', async () => {
    const [a, b, c] = [await issue(), await issue(), await issue()];
    const due = pastDue(5);
    await backdate(db(), b.id, due);
    const before = await getBalance(db(), merchant.accountId);
    const file = retornoFile(settings(), [
      { nossoNumero: a.boleto.nossoNumero, paidCents: 10000, paidOn: spDay(0) },
      { nossoNumero: b.boleto.nossoNumero, paidCents: 10000 + 200 + 17, paidOn: addDays(due, 5) }, // 5 days late
      { nossoNumero: a.boleto.nossoNumero, paidCents: 10000, paidOn: spDay(0) }, // the liquidação repeated
      { nossoNumero: '99999999999', paidCents: 10000, paidOn: spDay(0) },
      { nossoNumero: c.boleto.nossoNumero, paidCents: 9000, paidOn: spDay(0) }, // not what is due
      { nossoNumero: c.boleto.nossoNumero, paidCents: 10000, paidOn: spDay(0), movement: '02' }, // not a liquidação
    ]);
    const first = await importFile('retorno-1.ret', file);
    expect(first.code, first.stderr).toBe(0);
    expect(first.json).toEqual({ lines: 5, credited: 2, alreadyPaid: 1, unknown: 1, rejected: 1 });
    expect(await statusOf(a.id)).toEqual({ status: 'PAGO', paid_amount: 10000 });
    expect(await statusOf(b.id)).toEqual({ status: 'PAGO', paid_amount: 10217 });
    expect(await statusOf(c.id)).toEqual({ status: 'PENDENTE', paid_amount: null });
    expect((await eventsOf(server, 'sale', a.id)).map((e) => e.event_type)).toEqual([
      'sale.pending',
      'sale.paid',
    ]);
    const after = await getBalance(db(), merchant.accountId);
    const nets = await db().query<{ net: number }>(
      'SELECT sum(net_amount)::bigint AS net FROM sales WHERE id = ANY($1)',
      [[a.id, b.id]],
    );
    expect(after.total - before.total).toBe(nets[0]!.net);

    // the same file again: everything already paid, nothing credited twice
    const again = await importFile('retorno-1-again.ret', file);
    expect(again.json).toEqual({ lines: 5, credited: 0, alreadyPaid: 3, unknown: 1, rejected: 1 });
    expect((await getBalance(db(), merchant.accountId)).total).toBe(after.total);
    expect((await verifyLedger(db())).ok).toBe(true);

    // paid at a bank, a boleto has no Pix to send the money back by: the gateway refuses its refund, writing nothing
    for (const body of [{}, { amountCents: 1000 }]) {
      const refund = await call<{ error?: string; message?: string }>(
        'POST',
        `${server.url}/api/transactions/${a.id}/refund`,
        { headers: merchant.keys, body },
      );
      expect(refund.status, refund.text).toBe(409);
      expect(refund.text).toContain('CONFLICT');
      expect(refund.text).toContain('paid at a bank');
    }
    expect(await statusOf(a.id)).toEqual({ status: 'PAGO', paid_amount: 10000 });
    expect(await db().query('SELECT 1 FROM sale_refunds WHERE sale_id = $1', [a.id])).toEqual([]);
    expect((await getBalance(db(), merchant.accountId)).total).toBe(after.total);
  });

  it('a boleto due on a Saturday paid at the bank on Monday at its face value is credited', async () => {
    const sale = await issue({ dueDate: nextSaturday(), daysAfterDue: 0 });
    const saturday = lastSaturday();
    await backdate(db(), sale.id, saturday);
    const file = retornoFile(settings(), [
      { nossoNumero: sale.boleto.nossoNumero, paidCents: 10000, paidOn: addDays(saturday, 2) },
    ]);
    expect((await importFile('saturday.ret', file)).json).toMatchObject({ credited: 1, rejected: 0 });
    expect(await statusOf(sale.id)).toEqual({ status: 'PAGO', paid_amount: 10000 });
  });

  it.each([
    [
      'a record of 239 characters',
      (f: string) => f.replace(/ \r\n/, '\r\n') /* the header's last blank */,
      /240 characters/,
    ],
    [
      'a segment T without its U',
      (f: string) =>
        f
          .split('\r\n')
          .filter((l) => cut(l, 14, 14) !== 'U' || cut(l, 8, 8) !== '3')
          .join('\r\n'),
      /followed by its U|counts/,
    ],
    ['a truncated file', (f: string) => f.split('\r\n').slice(0, 4).join('\r\n'), /trailer/],
    ['a remessa instead of a return', (f: string) => f.replace(/^(.{142})2/, '$11'), /return file/],
  ])('refuses %s whole: exit 1, nothing credited', async (_, spoil, why) => {
    const sale = await issue();
    const file = spoil(
      retornoFile(settings(), [{ nossoNumero: sale.boleto.nossoNumero, paidCents: 10000, paidOn: spDay(0) }]),
    );
    const res = await importFile(`spoiled-${Date.now()}.ret`, file);
    expect(res.code).toBe(1);
    expect(res.json.error.message).toMatch(why);
    expect(res.json.error.message).toMatch(/nothing imported/);
    expect((await statusOf(sale.id)).status).toBe('PENDENTE');
  });

  it('refuses a file with a payment dated after today whole: a bank reports payments made', async () => {
    const [sale, other] = [await issue(), await issue()];
    const file = retornoFile(settings(), [
      { nossoNumero: other.boleto.nossoNumero, paidCents: 10000, paidOn: spDay(0) },
      { nossoNumero: sale.boleto.nossoNumero, paidCents: 10000, paidOn: spDay(1) },
    ]);
    const res = await importFile('tomorrow.ret', file);
    expect(res.code).toBe(1);
    expect(res.json.error.message).toMatch(
      new RegExp(
        `nothing imported: line \\d+: the payment is dated ${spDay(1)}, after today \\(${spDay(0)}\\)`,
      ),
    );
    expect((await statusOf(sale.id)).status).toBe('PENDENTE');
    expect((await statusOf(other.id)).status).toBe('PENDENTE');
  });

  it("refuses another beneficiary's file whole, and a title of another account; a nosso número with other digits before the gateway's 11 is unknown", async () => {
    const sale = await issue();
    const line = { nossoNumero: sale.boleto.nossoNumero, paidCents: 10000, paidOn: spDay(0) };
    const other = { ...settings(), agency: '9999', account: '9999999' };
    // our header, and a title (segment T, the third record) of another agency and account
    const records = retornoFile(settings(), [line]).split('\r\n');
    const t = records[2]!;
    records[2] = `${t.slice(0, 17)}09999${t.slice(22, 23)}000009999999${t.slice(35)}`;
    for (const [name, file, why] of [
      [
        'other-beneficiary.ret',
        retornoFile(other, [line]),
        // the settings as they were given, not as the file pads them
        new RegExp(
          `line 1: the file is of beneficiary .* agency 09999, account 000009999999 \\(as CNAB 240 writes them, zeros on the left\\), not of BOLETO_BENEFICIARY_DOCUMENT ${settings().beneficiaryDocument}, BOLETO_AGENCY ${settings().agency}, BOLETO_ACCOUNT ${settings().account}$`,
        ),
      ],
      [
        'other-account-title.ret',
        records.join('\r\n'),
        new RegExp(
          `a title of agency 09999, account 000009999999 \\(zeros on the left\\): not BOLETO_AGENCY ${settings().agency} and BOLETO_ACCOUNT ${settings().account}$`,
        ),
      ],
      [
        'empty.ret',
        '',
        /nothing imported: the file is empty: a CNAB 240 return file has at least 4 records$/,
      ],
      ['empty-lines.ret', '\r\n\r\n', /nothing imported: the file is empty/],
    ] as const) {
      const res = await importFile(name, file);
      expect(res.code, res.stdout).toBe(1);
      expect(res.json.error.message).toMatch(why);
    }
    expect((await statusOf(sale.id)).status).toBe('PENDENTE');
    // the same 11 digits with others before them: another number, never this boleto
    const longer = retornoFile(settings(), [{ ...line, nossoNumero: `999999999${sale.boleto.nossoNumero}` }]);
    expect((await importFile('longer.ret', longer)).json).toEqual({
      lines: 1,
      credited: 0,
      alreadyPaid: 0,
      unknown: 1,
      rejected: 0,
    });
    expect((await statusOf(sale.id)).status).toBe('PENDENTE');
    // blank lines after the trailer are no records
    expect((await importFile('blank-end.ret', `${longer}\r\n\r\n`)).json).toMatchObject({
      lines: 1,
      unknown: 1,
    });
    // zero-filled, it is this boleto; and without --json the command prints the same object (the contract's words)
    const file = path.join(dir, 'zero-filled.ret');
    writeFileSync(
      file,
      retornoFile(settings(), [{ ...line, nossoNumero: `000000000${sale.boleto.nossoNumero}` }]),
      'latin1',
    );
    const plain = await runGateway(['boletos', 'retorno', file], env());
    expect(plain.code, plain.stderr).toBe(0);
    expect(JSON.parse(plain.stdout)).toEqual({
      lines: 1,
      credited: 1,
      alreadyPaid: 0,
      unknown: 0,
      rejected: 0,
    });
    expect((await statusOf(sale.id)).status).toBe('PAGO');
  });

  it('a file that cannot be read fails the import (exit 1); no file named is bad usage (exit 2), said once', async () => {
    const missing = await runGateway(
      ['boletos', 'retorno', path.join(dir, 'nao-existe.ret'), '--json'],
      env(),
    );
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout).error.message).toMatch(/^cannot read .*nao-existe\.ret: ENOENT/);
    const folder = await runGateway(['boletos', 'retorno', dir, '--json'], env());
    expect(folder.code).toBe(1);
    const none = await runGateway(['boletos', 'retorno'], env());
    expect(none.code).toBe(2);
    expect(none.stderr).toBe('error: usage: gateway boletos retorno FILE [--json]\n');
    // a day that does not exist is a usage error of one line, before the database is asked anything
    const noDay = await runGateway(['boletos', 'remessa', '--date', '2026-11-31'], env());
    expect(noDay.code).toBe(2);
    expect(noDay.stderr).toBe(
      'error: --date must be a date YYYY-MM-DD that exists, years 1900 to 9998, got "2026-11-31" (usage: gateway boletos remessa --date YYYY-MM-DD [--out FILE] [--json])\n',
    );
    // nor a day after today's in São Paulo: it would ask the bank's baixas in a file never sent
    const later = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10); // after any zone's today
    const future = await runGateway(['boletos', 'remessa', '--date', later], env());
    expect(future.code).toBe(2);
    expect(future.stderr).toMatch(
      /^error: --date must be today \(\d{4}-\d{2}-\d{2}, São Paulo\) or earlier, got "/,
    );
  });
});

describe('a return file longer than one chunk of 500 lines', () => {
  const unknown = (n: number): Liquidacao[] =>
    Array.from({ length: n }, (_, i) => ({
      nossoNumero: String(90_000_000_000 + i),
      paidCents: 10000,
      paidOn: spDay(1),
    }));
  const platform = () => server.runtime.platform;
  const importDirect = (lines: Liquidacao[]) =>
    importRetorno(platform().db, platform().queue, settings(), lines);

  it('decides each line in file order across chunks: credited once, the repeat alreadyPaid, a second liquidação a duplicate', async () => {
    const [a, b] = [await issue(), await issue()];
    const balance = await getBalance(db(), merchant.accountId);
    const paid = { nossoNumero: a.boleto.nossoNumero, paidCents: 10000, paidOn: spDay(1) };
    const report = await importDirect([
      paid,
      ...unknown(520),
      paid, // the same liquidação, in the next chunk
      { ...paid, paidOn: spDay(2) }, // a second one
      { nossoNumero: b.boleto.nossoNumero, paidCents: 10000, paidOn: spDay(2) },
    ]);
    expect(report).toEqual({ lines: 524, credited: 2, alreadyPaid: 2, unknown: 520, rejected: 0 });
    expect(await statusOf(a.id)).toEqual({ status: 'PAGO', paid_amount: 10000 });
    expect(await statusOf(b.id)).toEqual({ status: 'PAGO', paid_amount: 10000 });
    const nets = await db().query<{ net: number }>(
      'SELECT sum(net_amount)::bigint AS net FROM sales WHERE id = ANY($1)',
      [[a.id, b.id]],
    );
    expect((await getBalance(db(), merchant.accountId)).total - balance.total).toBe(nets[0]!.net);
    const found = await db().query<{ kind: string }>(
      'SELECT kind FROM reconciliation_discrepancies WHERE txid = $1',
      [a.externalTransactionId],
    );
    expect(found).toEqual([{ kind: 'duplicate_payment' }]);
    expect((await eventsOf(server, 'sale', a.id)).map((e) => e.event_type)).toEqual([
      'sale.pending',
      'sale.paid',
    ]);
  });

  it('a failure in a later chunk imports nothing of the file, earlier chunks included', async () => {
    const a = await issue();
    // a boleto whose kept fee is more than it is paid: crediting it fails
    const costly = await createMerchant(server, 'Taxa alta');
    await db().query('UPDATE accounts SET sale_fee_fixed = 20000 WHERE id = $1', [costly.accountId]);
    const res = await call<BoletoSaleBody>('POST', `${server.url}/api/transactions`, {
      headers: costly.keys,
      body: boletoInput({
        amount: 30000,
        items: [{ title: 'Curso', unitPrice: 30000, quantity: 1, tangible: false }],
      }),
    });
    expect(res.status, res.text).toBe(201);
    // (a sale keeps the fee terms it was created with: they are changed on the sale itself)
    await db().query('UPDATE sales SET fee_fixed = 40000 WHERE id = $1', [res.body.id]);
    const balance = await getBalance(db(), merchant.accountId);
    await expect(
      importDirect([
        { nossoNumero: a.boleto.nossoNumero, paidCents: 10000, paidOn: spDay(1) },
        ...unknown(520),
        { nossoNumero: res.body.boleto.nossoNumero, paidCents: 30000, paidOn: spDay(1) },
      ]),
    ).rejects.toThrow(/does not cover/);
    expect(await statusOf(a.id)).toEqual({ status: 'PENDENTE', paid_amount: null });
    expect(await statusOf(res.body.id)).toEqual({ status: 'PENDENTE', paid_amount: null });
    expect((await getBalance(db(), merchant.accountId)).total).toBe(balance.total);
    expect(await eventsOf(server, 'sale', a.id)).toHaveLength(1);
  });
});

describe('a boleto paid twice', () => {
  it('paid first (Pix, here the sandbox), then by barcode: credits nothing and is a duplicate_payment discrepancy', async () => {
    const sale = await issue();
    expect((await moveTo(server, merchant, sale.id, 'PAGO')).status).toBe(200);
    const balance = await getBalance(db(), merchant.accountId);
    const file = retornoFile(settings(), [
      { nossoNumero: sale.boleto.nossoNumero, paidCents: 10000, paidOn: spDay(0) },
    ]);
    expect((await importFile('twice-1.ret', file)).json).toMatchObject({ credited: 0, alreadyPaid: 1 });
    expect((await importFile('twice-2.ret', file)).json).toMatchObject({ credited: 0, alreadyPaid: 1 });
    expect((await getBalance(db(), merchant.accountId)).total).toBe(balance.total);
    const found = await db().query<{ kind: string; txid: string; amount: number }>(
      `SELECT kind, txid, amount FROM reconciliation_discrepancies WHERE txid = $1`,
      [sale.externalTransactionId],
    );
    expect(found).toEqual([{ kind: 'duplicate_payment', txid: sale.externalTransactionId, amount: 10000 }]);
  });

  it('paid by barcode, then a second liquidação in a later file: credits nothing, one duplicate_payment however often imported', async () => {
    const sale = await issue();
    await backdate(db(), sale.id, addDays(DUE(), -1)); // issued yesterday
    const first = retornoFile(settings(), [
      { nossoNumero: sale.boleto.nossoNumero, paidCents: 10000, paidOn: spDay(-1) },
    ]);
    expect((await importFile('paid-1.ret', first)).json).toMatchObject({ credited: 1 });
    const balance = await getBalance(db(), merchant.accountId);
    const later = retornoFile(
      settings(),
      [{ nossoNumero: sale.boleto.nossoNumero, paidCents: 10000, paidOn: spDay(0) }],
      '2026-11-26',
    );
    expect((await importFile('paid-2.ret', later)).json).toMatchObject({ credited: 0, alreadyPaid: 1 });
    expect((await importFile('paid-2-again.ret', later)).json).toMatchObject({ credited: 0, alreadyPaid: 1 });
    expect(await statusOf(sale.id)).toEqual({ status: 'PAGO', paid_amount: 10000 });
    expect((await getBalance(db(), merchant.accountId)).total).toBe(balance.total);
    const found = await db().query<{ kind: string; amount: number; detail: string }>(
      'SELECT kind, amount::int AS amount, detail FROM reconciliation_discrepancies WHERE txid = $1',
      [sale.externalTransactionId],
    );
    expect(found).toEqual([
      {
        kind: 'duplicate_payment',
        amount: 10000,
        detail: `boleto ${sale.boleto.nossoNumero} paid again (by barcode on ${spDay(0)}): not credited`,
      },
    ]);
    expect((await eventsOf(server, 'sale', sale.id)).map((e) => e.event_type)).toEqual([
      'sale.pending',
      'sale.paid',
    ]);
  });

  it('the same liquidação reported again (a file imported twice) is no discrepancy', async () => {
    const sale = await issue();
    const file = retornoFile(settings(), [
      { nossoNumero: sale.boleto.nossoNumero, paidCents: 10000, paidOn: spDay(0) },
    ]);
    expect((await importFile('once-1.ret', file)).json).toMatchObject({ credited: 1 });
    expect((await importFile('once-2.ret', file)).json).toMatchObject({ credited: 0, alreadyPaid: 1 });
    const found = await db().query('SELECT 1 FROM reconciliation_discrepancies WHERE txid = $1', [
      sale.externalTransactionId,
    ]);
    expect(found).toEqual([]);
  });
});

describe('money the bank received that credits nothing', () => {
  const discrepancies = (where: string, value: unknown) =>
    db().query<{ kind: string; txid: string | null; amount: number; detail: string; e2eid: string }>(
      `SELECT kind, txid, amount::int AS amount, detail, e2eid FROM reconciliation_discrepancies WHERE ${where} ORDER BY id`,
      [value],
    );

  it('a boleto cancelled, then paid at the bank: rejected, credited nothing, a closed_charge_paid discrepancy once', async () => {
    const sale = await issue();
    const cancel = await call('POST', `${server.url}/api/transactions/${sale.uuid}/cancel`, {
      headers: merchant.keys,
    });
    expect(cancel.status, cancel.text).toBe(200);
    const balance = await getBalance(db(), merchant.accountId);
    const file = retornoFile(settings(), [
      { nossoNumero: sale.boleto.nossoNumero, paidCents: 10000, paidOn: spDay(0) },
    ]);
    const report = { lines: 1, credited: 0, alreadyPaid: 0, unknown: 0, rejected: 1 };
    const counted = async () => {
      const res = await call('GET', `${server.url}/metrics`, {
        headers: { authorization: `Bearer ${METRICS_TOKEN}` },
      });
      const line = /^gateway_reconciliation_discrepancies_total\{kind="closed_charge_paid"\} (\d+)$/m.exec(
        res.text,
      );
      return Number(line?.[1] ?? 0);
    };
    const countedBefore = await counted();
    expect((await importFile('cancelled-1.ret', file)).json).toEqual(report);
    // found by the operator's command, a process of its own that exits: the serving process counts it
    expect(await counted()).toBe(countedBefore + 1);
    expect((await importFile('cancelled-2.ret', file)).json).toEqual(report);
    expect(await counted()).toBe(countedBefore + 1);
    expect(await statusOf(sale.id)).toEqual({ status: 'CANCELADO', paid_amount: null });
    expect((await getBalance(db(), merchant.accountId)).total).toBe(balance.total);
    expect(await discrepancies('txid = $1', sale.externalTransactionId)).toEqual([
      {
        kind: 'closed_charge_paid',
        txid: sale.externalTransactionId,
        amount: 10000,
        detail: `boleto ${sale.boleto.nossoNumero} of sale ${sale.uuid} is CANCELADO, paid by barcode on ${spDay(0)}: not credited`,
        e2eid: `cnab:${sale.boleto.nossoNumero}:${spDay(0)}:10000`,
      },
    ]);
    // the operator's list names it, as the other kinds
    const listed = await runGateway(['reconcile', '--discrepancies', '--json'], env());
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).discrepancies).toContainEqual(
      expect.objectContaining({
        kind: 'closed_charge_paid',
        txid: sale.externalTransactionId,
        amount: 10000,
      }),
    );
  });

  it('a wrong amount, a payment past the last day and an unknown nosso número are each a discrepancy', async () => {
    const [short, late] = [await issue(), await issue({ daysAfterDue: 1 })];
    await backdate(db(), late.id, pastDue(10)); // its last day to be paid is a week gone
    const file = retornoFile(settings(), [
      { nossoNumero: short.boleto.nossoNumero, paidCents: 9000, paidOn: spDay(0) },
      { nossoNumero: late.boleto.nossoNumero, paidCents: 10500, paidOn: spDay(0) },
      { nossoNumero: '88888888888', paidCents: 4321, paidOn: spDay(0) },
    ]);
    expect((await importFile('owed.ret', file)).json).toEqual({
      lines: 3,
      credited: 0,
      alreadyPaid: 0,
      unknown: 1,
      rejected: 2,
    });
    expect((await statusOf(short.id)).status).toBe('PENDENTE');
    const [shortFound] = await discrepancies('txid = $1', short.externalTransactionId);
    expect(shortFound).toMatchObject({ kind: 'amount_mismatch', amount: 9000 });
    expect(shortFound!.detail).toMatch(/paid 9000 cents by barcode on .*, 10000 due that day: not credited$/);
    const [lateFound] = await discrepancies('txid = $1', late.externalTransactionId);
    expect(lateFound).toMatchObject({ kind: 'amount_mismatch', amount: 10500 });
    expect(lateFound!.detail).toMatch(/after its last day to be paid/);
    expect(await discrepancies('e2eid = $1', `cnab:88888888888:${spDay(0)}:4321`)).toEqual([
      expect.objectContaining({ kind: 'unknown_charge', txid: null, amount: 4321 }),
    ]);
  });
});

describe('gateway boletos remessa', () => {
  it("writes the day's boletos as segments P and Q of 240 characters, and R for a fine", async () => {
    const sale = await issue({ discount: { amountCents: 300, untilDate: spDay(1) } });
    const plain = await issue({ finePercent: undefined, monthlyInterestPercent: undefined });
    // cancelled by its merchant before the file is written: the bank is never asked to collect it
    const cancelled = await issue();
    const cancel = await call('POST', `${server.url}/api/transactions/${cancelled.uuid}/cancel`, {
      headers: merchant.keys,
    });
    expect(cancel.status, cancel.text).toBe(200);
    const out = path.join(dir, 'remessa.rem');
    const res = await runGateway(['boletos', 'remessa', '--date', spDay(0), '--out', out, '--json'], env());
    expect(res.code, res.stderr).toBe(0);
    const records = readFileSync(out, 'latin1').replace(/\r\n$/, '').split('\r\n');
    expect(records.every((r) => r.length === 240)).toBe(true);
    const ps = records.filter((r) => cut(r, 8, 8) === '3' && cut(r, 14, 14) === 'P');
    expect(JSON.parse(res.stdout).boletos).toBe(ps.length);
    expect(JSON.parse(res.stdout).leftOut).toBeGreaterThanOrEqual(1);
    expect(ps.some((r) => cut(r, 38, 57).endsWith(cancelled.boleto.nossoNumero))).toBe(false);
    const p = records.find(
      (r) => cut(r, 14, 14) === 'P' && cut(r, 38, 57).endsWith(sale.boleto.nossoNumero),
    )!;
    expect(cut(p, 16, 17)).toBe('01');
    expect(cut(p, 86, 100)).toBe('000000000010000');
    expect(cut(p, 78, 85)).toBe(`${DUE().slice(8)}${DUE().slice(5, 7)}${DUE().slice(0, 4)}`);
    expect(cut(p, 151, 165)).toBe('000000000000300');
    // interest 1.00 % a month as a monthly rate (código 2) from the day after the due date, as the gateway
    // reckons it: not 3 cents a day, which is what R$ 100,00 at 1 % a month rounds to
    const dayAfter = addDays(DUE(), 1);
    const cnabDay = (d: string) => `${d.slice(8)}${d.slice(5, 7)}${d.slice(0, 4)}`;
    expect(cut(p, 118, 118)).toBe('2');
    expect(cut(p, 119, 126)).toBe(cnabDay(dayAfter));
    expect(cut(p, 127, 141)).toBe('000000000000100');
    const q = records[records.indexOf(p) + 1]!;
    expect(cut(q, 14, 14)).toBe('Q');
    expect(cut(q, 34, 73).trim()).toBe('MARIA SILVA');
    expect(cut(q, 152, 153)).toBe('SP');
    // the fine, 2.00 %, in its segment R (código 2: a percentage), from the day after the due date
    const r = records[records.indexOf(p) + 2]!;
    expect(cut(r, 14, 14)).toBe('R');
    expect(cut(r, 9, 13)).toBe(String(Number(cut(q, 9, 13)) + 1).padStart(5, '0'));
    expect(cut(r, 66, 66)).toBe('2');
    expect(cut(r, 67, 74)).toBe(cnabDay(dayAfter));
    expect(cut(r, 75, 89)).toBe('000000000000200');
    // a boleto without fine or interest: no R, interest código 3 (isento)
    const bare = records.find(
      (x) => cut(x, 14, 14) === 'P' && cut(x, 38, 57).endsWith(plain.boleto.nossoNumero),
    )!;
    expect(cut(bare, 118, 118)).toBe('3');
    expect(cut(records[records.indexOf(bare) + 2] ?? '', 14, 14)).not.toBe('R');
    // the lot trailer counts every record of the lot, R included
    const lotTrailer = records.at(-2)!;
    expect(Number(cut(lotTrailer, 18, 23))).toBe(records.length - 2);
    expect(cut(records.at(-1)!, 24, 29)).toBe(String(records.length).padStart(6, '0'));
  });

  it('asks the bank to take down (movement 02) a registered boleto cancelled or paid by its Pix since, once; never one it was not told of', async () => {
    const [cancelled, paidByPix, open, neverSent] = [
      await issue(),
      await issue(),
      await issue(),
      await issue(),
    ];
    await call('POST', `${server.url}/api/transactions/${neverSent.uuid}/cancel`, { headers: merchant.keys });
    // issued two days ago: the files of the days since are written as each day ended (never a day to come)
    await db().query(
      `UPDATE boletos b SET created_at = b.created_at - interval '2 days' FROM sales s
        WHERE s.id = b.sale_id AND s.uuid = ANY($1::uuid[])`,
      [[cancelled, paidByPix, open, neverSent].map((b) => b.uuid)],
    );
    const write = async (day: string) => {
      const out = path.join(dir, `remessa-${day}-${Math.random()}.rem`);
      const res = await runGateway(['boletos', 'remessa', '--date', day, '--out', out, '--json'], env());
      expect(res.code, res.stderr).toBe(0);
      const records = readFileSync(out, 'latin1').replace(/\r\n$/, '').split('\r\n');
      expect(records.every((r) => r.length === 240)).toBe(true);
      const movementOf = (b: BoletoSaleBody) =>
        records
          .filter((r) => cut(r, 14, 14) === 'P' && cut(r, 38, 57).endsWith(b.boleto.nossoNumero))
          .map((r) => ({ movement: cut(r, 16, 17), next: cut(records[records.indexOf(r) + 1]!, 14, 14) }));
      return { json: JSON.parse(res.stdout), movementOf, records };
    };
    const first = await write(spDay(-2));
    for (const b of [cancelled, paidByPix, open])
      expect(first.movementOf(b)).toEqual([{ movement: '01', next: 'Q' }]);
    expect(first.movementOf(neverSent)).toEqual([]);

    const cancel = await call('POST', `${server.url}/api/transactions/${cancelled.uuid}/cancel`, {
      headers: merchant.keys,
    });
    expect(cancel.status, cancel.text).toBe(200);
    expect((await moveTo(server, merchant, paidByPix.uuid, 'PAGO')).status).toBe(200);

    // the next day's file: a baixa of each, a segment P alone; the open one and the one never sent, nothing
    const second = await write(spDay(-1));
    expect(second.movementOf(cancelled)).toEqual([
      { movement: '02', next: expect.not.stringMatching(/^Q$/) },
    ]);
    expect(second.movementOf(paidByPix)).toEqual([
      { movement: '02', next: expect.not.stringMatching(/^Q$/) },
    ]);
    expect(second.movementOf(open)).toEqual([]);
    expect(second.movementOf(neverSent)).toEqual([]);
    expect(second.json.takenDown).toBeGreaterThanOrEqual(2);
    // the lot trailer counts the baixas too
    expect(Number(cut(second.records.at(-2)!, 18, 23))).toBe(second.records.length - 2);
    // written again, that day's file is the same; the day after asks nothing again
    expect((await write(spDay(-1))).records).toEqual(second.records);
    const after = await write(spDay(0));
    expect(after.movementOf(cancelled)).toEqual([]);
    expect(after.movementOf(paidByPix)).toEqual([]);
    // the first day's file written again (sent twice, say) registers only what still awaits payment: never a
    // boleto taken down since, which no later file would take down again
    const again = await write(spDay(-2));
    expect(again.movementOf(cancelled)).toEqual([]);
    expect(again.movementOf(paidByPix)).toEqual([]);
    expect(again.movementOf(open)).toEqual([{ movement: '01', next: 'Q' }]);
  });

  it('dates a boleto issued late in the evening on its São Paulo day, as the file it is in', async () => {
    const late = await issue();
    const day = spDay(-4);
    // 23:30 in São Paulo: already the next day in UTC
    await db().query(
      `UPDATE boletos b SET created_at = $2 FROM sales s WHERE s.id = b.sale_id AND s.uuid = $1`,
      [late.uuid, fromSaoPaulo(`${day}T23:30`)],
    );
    const out = path.join(dir, `remessa-late-${day}.rem`);
    const res = await runGateway(['boletos', 'remessa', '--date', day, '--out', out, '--json'], env());
    expect(res.code, res.stderr).toBe(0);
    const records = readFileSync(out, 'latin1').replace(/\r\n$/, '').split('\r\n');
    const p = records.find((r) => cut(r, 14, 14) === 'P' && cut(r, 38, 57).endsWith(late.boleto.nossoNumero));
    expect(p, 'its segment P').toBeDefined();
    expect(cut(p!, 110, 117)).toBe(`${day.slice(8)}${day.slice(5, 7)}${day.slice(0, 4)}`);
  });
});
