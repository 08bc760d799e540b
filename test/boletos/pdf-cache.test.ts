import { describe, expect, it } from 'vitest';
import type { BoletoRow } from '../../src/boletos/data.js';
import { drawable } from '../../src/boletos/pdf.js';
import { BoletoPdfCache } from '../../src/boletos/pdf-cache.js';
import { purchaseOf } from '../../src/boletos/purchase.js';
import { boletoSettings } from '../../src/platform/config/boleto.js';

const settings = boletoSettings({});
const row = (saleId: number): BoletoRow => ({
  sale_id: saleId,
  account_id: 1,
  beneficiary: 'b',
  nosso_numero: String(saleId).padStart(11, '0'),
  barcode: '2379'.padEnd(44, '1'),
  digitable_line: '2379'.padEnd(47, '1'),
  amount: 10000,
  due_date: '2030-01-10',
  days_after_due: 0,
  fine_bp: 0,
  monthly_interest_bp: 0,
  discount_cents: null,
  discount_until: null,
  shop_name: null,
  description: null,
  txid: `tx${saleId}`,
  pix_copy_paste: `00020101021226${saleId}`.padEnd(120, '0'),
  payer: {
    name: 'Maria Silva',
    document: '52998224725',
    address: {
      street: 'Rua das Flores',
      number: '100',
      district: 'Centro',
      city: 'São Paulo',
      state: 'SP',
      zipCode: '01001000',
    },
  } as BoletoRow['payer'],
  created_at: new Date(),
  cnab_paid_on: null,
  cnab_paid_amount: null,
});

describe('BoletoPdfCache', () => {
  it('renders a boleto once: fetches at the same time share the render, later ones get the kept bytes', async () => {
    const cache = new BoletoPdfCache(settings);
    const [a, b, c] = await Promise.all([cache.pdf(row(1)), cache.pdf(row(1)), cache.pdf(row(1))]);
    expect(b).toBe(a);
    expect(c).toBe(a);
    expect(await cache.pdf(row(1))).toBe(a);
    expect(Buffer.from(a).subarray(0, 5).toString()).toBe('%PDF-');
    expect(cache.size()).toEqual({ pdfs: 1, bytes: a.byteLength });
  });

  it('keeps at most its bytes, the least recently used out first', async () => {
    const probe = await new BoletoPdfCache(settings).pdf(row(1));
    const cache = new BoletoPdfCache(settings, Math.floor(probe.byteLength * 2.5));
    const one = await cache.pdf(row(1));
    await cache.pdf(row(2));
    expect(await cache.pdf(row(1))).toBe(one); // 1 used last: 2 goes first
    await cache.pdf(row(3));
    expect(cache.size().pdfs).toBe(2);
    expect(cache.size().bytes).toBeLessThanOrEqual(Math.floor(probe.byteLength * 2.5));
    expect(await cache.pdf(row(1))).toBe(one);
  });
});

describe('what a boleto prints of the sale', () => {
  it('names the shop and the purchase, with any character the standard fonts cannot draw replaced', async () => {
    const cache = new BoletoPdfCache(settings);
    const pdf = await cache.pdf({
      ...row(9001),
      shop_name: 'Loja 🛒 Ação',
      description: 'Camiseta 👕, ẞ café',
    });
    expect(Buffer.from(pdf).subarray(0, 5).toString()).toBe('%PDF-');
    expect(drawable('Loja 🛒 Ação')).toBe('Loja ? Ação');
    expect(drawable('ǅemal Ħ')).toBe('Dzemal H');
    // letters with a stroke lose it, as others lose their accents; what has no Latin letter stays "?"
    expect(drawable('Nguyễn Văn Đức & Łukasz 😀')).toBe('Nguyen Van Duc & Lukasz ?');
    expect(
      purchaseOf([
        { title: 'Camiseta', quantity: 2 },
        { title: 'Frete', quantity: 1 },
      ]),
    ).toBe('2 × Camiseta, Frete');
    expect([...purchaseOf([{ title: 'x'.repeat(300), quantity: 1 }])!].length).toBe(95);
    expect(purchaseOf([])).toBeNull();
  });
});
