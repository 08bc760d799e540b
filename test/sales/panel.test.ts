import { parse } from 'csv-parse/sync';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let m: TestMerchant;
let other: TestMerchant;
interface Sale {
  id: number;
  uuid: string;
  status: string;
  paymentMethod: string;
  amount: string;
  customer: { name: string; email: string; document: string };
}
const created: Sale[] = [];
const NAMES = ['Ana Souza', 'Bruno Conceição', 'Carla Dias', 'Davi Rocha', 'Elisa Melo'];
const DOCS = ['52998224725', '11144477735', '39053344705', '15350946056', '71428793860'];

function sale(i: number) {
  return {
    amount: 10_000 + i * 100,
    paymentMethod: i % 3 === 0 ? 'BOLETO' : 'PIX',
    customer: {
      name: NAMES[i % 5],
      email: `cliente${i % 5}@example.com`,
      document: DOCS[i % 5],
      phone: '11987654321',
    },
    items: [{ title: 'Curso', unitPrice: 10_000 + i * 100, quantity: 1, tangible: false }],
  };
}

beforeAll(async () => {
  server = await startServer({ workers: false });
  m = await createMerchant(server);
  other = await createMerchant(server);
  for (let i = 0; i < 23; i++) {
    const res = await call<Sale>('POST', `${server.url}/api/sandbox/sales`, {
      headers: m.keys,
      body: sale(i),
    });
    expect(res.status, res.text).toBe(201);
    created.push(res.body);
  }
  for (const s of created.filter((_, i) => i % 4 === 1)) {
    const res = await call('POST', `${server.url}/api/sandbox/sales/${s.uuid}/status`, {
      headers: m.keys,
      body: { status: 'PAGO' },
    });
    expect(res.status).toBe(200);
  }
  await call('POST', `${server.url}/api/sandbox/sales`, { headers: other.keys, body: sale(0) });
});
afterAll(() => server?.close());

type Page = { data: Sale[]; nextCursor: string | null };
const list = (query: string, who = m) =>
  call<Page>('GET', `${server.url}/api/sales?${query}`, { headers: who.panel });

async function everyPage(query: string): Promise<Sale[]> {
  const out: Sale[] = [];
  let cursor: string | null = null;
  do {
    const res: Awaited<ReturnType<typeof list>> = await list(
      `${query}&limit=7${cursor ? `&cursor=${cursor}` : ''}`,
    );
    expect(res.status, res.text).toBe(200);
    out.push(...res.body.data);
    cursor = res.body.nextCursor;
  } while (cursor);
  return out;
}

describe('GET /api/sales', () => {
  it('pages newest first, visiting every sale of the account exactly once', async () => {
    const all = await everyPage('');
    expect(all.map((s) => s.id)).toEqual(created.map((s) => s.id).reverse());
    const first = await list('');
    expect(first.body.data).toHaveLength(20); // default limit
  });

  it('filters by status, payment method, period and search', async () => {
    const paid = await everyPage('status=PAGO');
    expect(paid.map((s) => s.id).sort()).toEqual(
      created
        .filter((_, i) => i % 4 === 1)
        .map((s) => s.id)
        .sort(),
    );
    expect(paid.every((s) => s.status === 'PAGO')).toBe(true);
    const boleto = await everyPage('paymentMethod=BOLETO');
    expect(boleto.map((s) => s.id).sort()).toEqual(
      created
        .filter((_, i) => i % 3 === 0)
        .map((s) => s.id)
        .sort(),
    );
    const byName = await everyPage(`q=${encodeURIComponent('carla')}`);
    expect(byName.length).toBeGreaterThan(0);
    expect(byName.every((s) => s.customer.name === 'Carla Dias')).toBe(true);
    // accents and case aside, as merchants type names
    for (const typed of ['conceicao', 'CONCEIÇÃO', 'bruno conc', 'Conceiçao']) {
      const found = await everyPage(`q=${encodeURIComponent(typed)}`);
      expect(found.length, typed).toBeGreaterThan(0);
      expect(
        found.every((s) => s.customer.name === 'Bruno Conceição'),
        typed,
      ).toBe(true);
    }
    expect(await everyPage(`q=${encodeURIComponent('conceição_')}`)).toEqual([]); // _ is a character, not a wildcard
    expect((await everyPage('q=CLIENTE3%40example.com')).every((s) => s.customer.name === 'Davi Rocha')).toBe(
      true,
    );
    expect((await everyPage(`q=${DOCS[4]}`)).every((s) => s.customer.name === 'Elisa Melo')).toBe(true);
    expect((await everyPage('q=529.982.247-25')).every((s) => s.customer.name === 'Ana Souza')).toBe(true);
    expect((await everyPage(`q=${created[5]!.uuid}`)).map((s) => s.id)).toEqual([created[5]!.id]);
    expect((await everyPage(`q=${created[6]!.id}`)).map((s) => s.id)).toEqual([created[6]!.id]);
    expect(await everyPage('from=2001-01-01&to=2001-12-31')).toEqual([]);
    expect(await everyPage('from=2001-01-01')).toHaveLength(created.length);
  });

  it('never shows another account’s sales', async () => {
    const theirs = await everyPage('');
    expect(theirs.some((s) => !created.some((c) => c.id === s.id))).toBe(false);
    const detail = await call('GET', `${server.url}/api/sales/${created[0]!.uuid}`, { headers: other.panel });
    expect(detail.status).toBe(404);
    expect(detail.body).toEqual({ success: false, error: { code: 'NOT_FOUND', message: 'Sale not found' } });
    const mine = await call<Sale>('GET', `${server.url}/api/sales/${created[0]!.id}`, { headers: m.panel });
    expect(mine.body.uuid).toBe(created[0]!.uuid);
  });

  it('answers 400 VALIDATION_ERROR (shape A) for a bad filter, limit or cursor, and 401 without a session', async () => {
    for (const q of [
      'limit=0',
      'limit=101',
      'limit=x',
      'status=PAID',
      'paymentMethod=CASH',
      'cursor=abc',
      'from=ontem',
      'from=2026-02-01&to=2026-01-31',
      // days that do not exist, and years PostgreSQL or Date cannot take (they gave 500s)
      'from=2026-02-30',
      'to=2026-11-31',
      'from=2026-04-31T00:00:00Z',
      'from=0000-01-01',
      'to=0100-01-01',
      'to=9999-12-31',
    ]) {
      const res = await list(q);
      expect(res.status, q).toBe(400);
      expect((res.body as unknown as { error: { code: string } }).error.code).toBe('VALIDATION_ERROR');
    }
    expect((await call('GET', `${server.url}/api/sales`)).status).toBe(401);
    expect((await call('GET', `${server.url}/api/sales`, { headers: m.keys })).status).toBe(401);
  });
});

describe('GET /api/sales/export.csv', () => {
  it('streams every matching sale as the JSON list has them (BOM, ";", reais with a comma)', async () => {
    // one of them partly refunded: still PAGO, its refunded amount in its own column
    const paid = (await everyPage('status=PAGO'))[0]!;
    const refund = await call('POST', `${server.url}/api/transactions/${paid.uuid}/refund`, {
      headers: m.keys,
      body: { amountCents: 1234 },
    });
    expect(refund.status, refund.text).toBe(202);
    const res = await request(`${server.url}/api/sales/export.csv?status=PAGO`, { headers: m.panel });
    expect(res.statusCode).toBe(200);
    expect(String(res.headers['content-type'])).toContain('text/csv');
    const bytes = Buffer.from(await res.body.arrayBuffer());
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]); // UTF-8 BOM
    const rows = parse(bytes.subarray(3).toString('utf8'), { delimiter: ';', columns: true }) as Record<
      string,
      string
    >[];
    const json = await everyPage('status=PAGO');
    expect(rows.map((r) => Number(r.id))).toEqual(json.map((s) => s.id));
    for (const [i, r] of rows.entries()) {
      // in words, like the panel; the document masked but for its last digits, like the list
      expect(r.status).toBe('Pago');
      expect(r.forma_de_pagamento).toBe(json[i]!.paymentMethod === 'PIX' ? 'Pix' : r.forma_de_pagamento);
      expect(r.documento).toBe(json[i]!.customer.document ?? '');
      if (r.documento) expect(r.documento).toMatch(/^\*+\d{4}$/);
      expect(r.valor).toBe(
        `${Math.trunc(Number(json[i]!.amount) / 100)},${String(Number(json[i]!.amount) % 100).padStart(2, '0')}`,
      );
      expect(r.criada_em).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}-03:00$/);
      expect(r.cliente).toBe(json[i]!.customer.name);
      // what was given back so far, as the sale's refundedAmount (a PAGO sale partly refunded says so)
      const refunded = Number((json[i] as unknown as { refundedAmount: number }).refundedAmount);
      if (json[i]!.id === paid.id) expect(refunded).toBe(1234);
      expect(r.valor_estornado).toBe(
        `${Math.trunc(refunded / 100)},${String(refunded % 100).padStart(2, '0')}`,
      );
    }
  });

  it('gives a sale never paid no fee and no net: a column summed is what was credited', async () => {
    const shop = await createMerchant(server);
    const pending = await call<{ uuid: string; id: number }>('POST', `${server.url}/api/sandbox/sales`, {
      headers: shop.keys,
      body: {
        amount: 5000,
        paymentMethod: 'PIX',
        customer: { name: 'Ana', email: 'ana@example.com', document: '52998224725', phone: '11987654321' },
        items: [{ title: 'Caneca', unitPrice: 5000, quantity: 1, tangible: true }],
      },
    });
    expect(pending.status, pending.text).toBe(201);
    const cancelled = await call('POST', `${server.url}/api/transactions/${pending.body.uuid}/cancel`, {
      headers: shop.keys,
    });
    expect(cancelled.status, cancelled.text).toBe(200);
    const res = await request(`${server.url}/api/sales/export.csv?status=CANCELADO`, { headers: shop.panel });
    const bytes = Buffer.from(await res.body.arrayBuffer());
    const rows = parse(bytes.subarray(3).toString('utf8'), { delimiter: ';', columns: true }) as Record<
      string,
      string
    >[];
    const row = rows.find((r) => r.uuid === pending.body.uuid)!;
    expect(row).toMatchObject({ status: 'Cancelado', valor: '50,00', taxa: '', valor_liquido: '' });
  });
});

describe('CSV cells a spreadsheet would run', () => {
  it('are written as text: a buyer-chosen name starting with = + - @ gets a leading quote', async () => {
    const names = ['=HYPERLINK("http://x";"a")', '+SUM(1;2)', '-2+3', '@cmd', '=1+1'];
    const m2 = await createMerchant(server);
    for (const name of names) {
      const res = await call('POST', `${server.url}/api/sandbox/sales`, {
        headers: m2.keys,
        body: { ...sale(1), customer: { ...sale(1).customer, name } },
      });
      expect(res.status, res.text).toBe(201);
    }
    const csv = await request(`${server.url}/api/sales/export.csv`, { headers: m2.panel });
    const rows = parse(
      Buffer.from(await csv.body.arrayBuffer())
        .subarray(3)
        .toString('utf8'),
      { delimiter: ';', columns: true },
    ) as Record<string, string>[];
    expect(rows.map((r) => r.cliente).sort()).toEqual(names.map((n) => `'${n}`).sort());
    expect(rows.every((r) => /^\d+,\d{2}$/.test(r.valor!))).toBe(true);
  });
});

describe('periods (from/to)', () => {
  it('cut the list at the first sale created at or after each bound; a bare date is a whole day; adjacent periods share every sale once', async () => {
    // sale i created at noon (São Paulo) on 2025-01-01 + i days; the other account's sale stays today
    await server.runtime.platform.db.query(
      `UPDATE sales SET created_at = '2025-01-01T12:00:00-03:00'::timestamptz + (id - $2) * interval '1 day'
        WHERE account_id = $1`,
      [m.accountId, created[0]!.id],
    );
    const ids = (sales: Sale[]) => sales.map((s) => s.id);
    const expected = (from: number, to: number) =>
      created
        .slice(from, to)
        .map((s) => s.id)
        .reverse();
    expect(ids(await everyPage('from=2025-01-06&to=2025-01-10'))).toEqual(expected(5, 10));
    expect(ids(await everyPage('from=2025-01-06&to=2025-01-06'))).toEqual(expected(5, 6));
    expect(ids(await everyPage('from=2025-01-06T00:00:00-03:00&to=2025-01-11T00:00:00-03:00'))).toEqual(
      expected(5, 10),
    );
    expect(ids(await everyPage('status=PAGO&from=2025-01-06&to=2025-01-10'))).toEqual(
      created
        .filter((_, i) => i >= 5 && i < 10 && i % 4 === 1)
        .map((s) => s.id)
        .reverse(),
    );
    const before = await everyPage('to=2025-01-05');
    const after = await everyPage('from=2025-01-06');
    expect([...ids(after), ...ids(before)]).toEqual(expected(0, created.length));
    expect(ids(await everyPage('from=2025-01-06T12:00:00.001-03:00'))).toEqual(expected(6, created.length));
    expect(await everyPage('from=2030-01-01')).toEqual([]);
    const csv = await request(`${server.url}/api/sales/export.csv?from=2025-01-06&to=2025-01-10`, {
      headers: m.panel,
    });
    const rows = parse(
      Buffer.from(await csv.body.arrayBuffer())
        .subarray(3)
        .toString('utf8'),
      {
        delimiter: ';',
        columns: true,
      },
    ) as Record<string, string>[];
    expect(rows.map((r) => Number(r.id))).toEqual(expected(5, 10));
  });
});

describe('POST /api/sales ("Nova cobrança")', () => {
  const address = {
    street: 'Rua das Flores',
    number: '100',
    district: 'Centro',
    city: 'São Paulo',
    state: 'SP',
    zipCode: '01001-000',
  };
  const dueDate = () => new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
  const open = (body: object, headers: Record<string, string> = m.panel) =>
    call<Sale & { pixQrCode: string; boletoCode: string | null; boleto?: { digitableLine: string } }>(
      'POST',
      `${server.url}/api/sales`,
      { headers, body },
    );

  it("opens a PIX charge or issues a boleto for the session's account, as POST /api/transactions does", async () => {
    const pix = await open(sale(1));
    expect(pix.status, pix.text).toBe(201);
    expect(pix.body).toMatchObject({ status: 'PENDENTE', paymentMethod: 'PIX' });
    expect(pix.body.pixQrCode).toMatch(/^data:image\/svg\+xml;base64,/);
    const boleto = await open({
      ...sale(0),
      customer: { ...sale(0).customer, address },
      boleto: { dueDate: dueDate() },
    });
    expect(boleto.status, boleto.text).toBe(201);
    expect(boleto.body).toMatchObject({ status: 'PENDENTE', paymentMethod: 'BOLETO' });
    expect(boleto.body.boletoCode).toBe(boleto.body.boleto!.digitableLine);
    for (const s of [pix.body, boleto.body]) {
      expect((await call('GET', `${server.url}/api/sales/${s.uuid}`, { headers: m.panel })).status).toBe(200);
      expect((await call('GET', `${server.url}/api/sales/${s.uuid}`, { headers: other.panel })).status).toBe(
        404,
      );
    }
  });

  it('refuses a boleto without the payer’s address in shape A, and anyone without a session', async () => {
    const res = await open({ ...sale(0), boleto: { dueDate: dueDate() } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      error: { code: 'VALIDATION_ERROR', message: 'customer.address is required for a boleto' },
    });
    expect((await call('POST', `${server.url}/api/sales`, { body: sale(1) })).status).toBe(401);
    expect((await open(sale(1), m.keys)).status).toBe(401);
  });
});
