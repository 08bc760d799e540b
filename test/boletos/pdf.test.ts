import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PDFDict, PDFDocument, PDFName } from 'pdf-lib';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boletoOfSale } from '../../src/boletos/data.js';
import { renderBoletoPdf } from '../../src/boletos/pdf.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import { type BoletoSaleBody, boletoInput } from './fixtures.js';

let server: TestServer;
let merchant: TestMerchant;
let other: TestMerchant;
const run = promisify(execFile);
const dir = mkdtempSync(path.join(tmpdir(), 'gw-boleto-pdf-'));

beforeAll(async () => {
  server = await startServer({ workers: false });
  merchant = await createMerchant(server, 'Loja da Ana Ltda');
  other = await createMerchant(server);
});
afterAll(() => server?.close());

const issue = async () => {
  const res = await call<BoletoSaleBody>('POST', `${server.url}/api/transactions`, {
    headers: merchant.keys,
    body: boletoInput(
      { amount: 25990 },
      { finePercent: '2.00', monthlyInterestPercent: '1.00', daysAfterDue: 5 },
    ),
  });
  expect(res.status, res.text).toBe(201);
  return res.body;
};

/**
 * A fetch on a connection of its own: a kept-alive socket left idle while the test waits can reach the server's
 * idle timeout, and reusing it after was an ECONNRESET.
 */
async function fetchPdf(url: string, headers: Record<string, string> = {}) {
  const res = await request(url, { headers, reset: true });
  const type = res.headers['content-type'];
  return {
    status: res.statusCode,
    type: typeof type === 'string' ? type : null,
    bytes: Buffer.from(await res.body.arrayBuffer()),
  };
}

/**
 * The symbols zbarimg reads on the PDF's page rendered at 300 dpi: "TYPE:data" lines. Run without blocking the
 * event loop: the server is in this process, and seconds of execFileSync froze its timers, so that it closed
 * the clients' idle sockets only afterwards, under the next request's feet (an ECONNRESET of the next `call`).
 */
async function decode(pdf: Buffer, name: string): Promise<string[]> {
  const file = path.join(dir, `${name}.pdf`);
  writeFileSync(file, pdf);
  await run('pdftoppm', ['-png', '-r', '300', '-singlefile', file, path.join(dir, name)]);
  // zbarimg complains of a missing D-Bus on stderr
  const { stdout } = await run('zbarimg', [
    '--quiet',
    '-Sqrcode.enable',
    '-Si25.enable',
    path.join(dir, `${name}.png`),
  ]);
  return stdout.trim().split('\n');
}

describe('the boleto PDF', () => {
  it('is an A4 page whose ITF barcode reads back to the 44 digits and whose QR code is the cobv BR Code', async () => {
    const sale = await issue();
    const pdf = await fetchPdf(`${server.url}/api/transactions/${sale.id}/boleto.pdf`, merchant.keys);
    expect(pdf.status).toBe(200);
    expect(pdf.type).toBe('application/pdf');
    expect(pdf.bytes.subarray(0, 5).toString()).toBe('%PDF-');
    const info = execFileSync('pdfinfo', ['-'], { input: pdf.bytes, encoding: 'utf8' });
    expect(info).toMatch(/Pages:\s+1/);
    expect(info).toMatch(/Page size:\s+595\.2\d* x 841\.8\d* pts \(A4\)/);
    const symbols = await decode(pdf.bytes, 'boleto');
    expect(symbols).toContain(`I2/5:${sale.boleto.barcode}`);
    expect(symbols).toContain(`QR-Code:${sale.boleto.pixCopyPaste}`);
    const text = execFileSync('pdftotext', ['-layout', path.join(dir, 'boleto.pdf'), '-'], {
      encoding: 'utf8',
    });
    // the Pix copy-and-paste, wrapped: all of it on the page, nothing past the right margin (15 mm)
    expect(text.replace(/\s+/g, '')).toContain(sale.boleto.pixCopyPaste.replace(/\s+/g, ''));
    const boxes = execFileSync('pdftotext', ['-bbox', path.join(dir, 'boleto.pdf'), '-'], {
      encoding: 'utf8',
    });
    const rightmost = Math.max(...[...boxes.matchAll(/xMax="([\d.]+)"/g)].map((m) => Number(m[1])));
    expect(rightmost).toBeLessThanOrEqual(595.28 - (15 * 72) / 25.4 + 0.01);
    // the shop that sold, as FEBRABAN's Sacador/Avalista (the gateway is the beneficiary), and what was bought
    expect(text).toContain('Sacador/Avalista');
    expect(text).toContain('Loja da Ana Ltda');
    expect(text).toContain('Referente a: Curso online');
    for (const shown of [
      'Maria Silva',
      'R$ 259,90',
      'multa de 2,00%',
      'juros de 1,00% ao mês',
      sale.boleto.nossoNumero,
    ])
      expect(text).toContain(shown);
  });

  it("fits a long payer name, address and description to the page, the payer's document always shown", async () => {
    const name =
      `Cooperativa de Produtores Rurais ${'Associados do Vale do São Francisco e Região '.repeat(4)}Zoë 李`.slice(
        0,
        200,
      );
    const res = await call<BoletoSaleBody>('POST', `${server.url}/api/transactions`, {
      headers: merchant.keys,
      body: boletoInput({
        amount: 25990,
        items: [
          {
            title: `Pedido ${'de mudas e sementes '.repeat(8)}`.trim(),
            unitPrice: 25990,
            quantity: 1,
            tangible: true,
          },
        ],
        customer: {
          name,
          email: 'coop@example.com',
          document: '11222333000181',
          phone: '5511987654321',
          address: {
            street: `Rodovia ${'Estadual do Interior Paulista '.repeat(4)}`.trim(),
            number: '12345',
            district: 'Distrito Industrial de Muito Longe',
            city: 'São José do Rio Preto',
            state: 'SP',
            zipCode: '15000000',
          },
        },
      }),
    });
    expect(res.status, res.text).toBe(201);
    const pdf = await fetchPdf(`${server.url}/api/transactions/${res.body.id}/boleto.pdf`, merchant.keys);
    expect(pdf.status).toBe(200);
    const file = path.join(dir, 'long-names.pdf');
    writeFileSync(file, pdf.bytes);
    const boxes = execFileSync('pdftotext', ['-bbox', file, '-'], { encoding: 'utf8' });
    const rightmost = Math.max(...[...boxes.matchAll(/xMax="([\d.]+)"/g)].map((m) => Number(m[1])));
    expect(rightmost).toBeLessThanOrEqual(595.28 - (15 * 72) / 25.4 + 0.01);
    const text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
    expect(text).toMatch(/Cooperativa de Produtores Rurais Associados .*… - 11\.222\.333\/0001-81/);
    // the street gives way: the house's number, the city, its state and the CEP stay whole
    expect(text).toMatch(
      /Rodovia Estadual .*…, 12345 - Distrito Industrial.* - São José do Rio Preto\/SP - CEP 15000-000/,
    );
    expect(text).toMatch(/Referente a: Pedido de mudas e sementes .*…/);
  });

  it('the payer link needs no key; a wrong token, another account or a PIX sale get nothing', async () => {
    const sale = await issue();
    const url = sale.boleto.pdfUrl.replace(/^http:\/\/localhost:\d+/, server.url);
    const payer = await fetchPdf(url);
    expect(payer.status).toBe(200);
    expect(payer.type).toBe('application/pdf');
    expect(await decode(payer.bytes, 'payer')).toContain(`I2/5:${sale.boleto.barcode}`);
    expect((await fetchPdf(url.replace(/[A-Za-z0-9_-]{32}\.pdf$/, `${'A'.repeat(32)}.pdf`))).status).toBe(
      404,
    );
    expect((await fetchPdf(`${server.url}/api/transactions/${sale.id}/boleto.pdf`)).status).toBe(401);
    expect((await fetchPdf(`${server.url}/api/transactions/${sale.id}/boleto.pdf`, other.keys)).status).toBe(
      403,
    );
    const pix = await call<BoletoSaleBody>('POST', `${server.url}/api/transactions`, {
      headers: merchant.keys,
      body: { ...boletoInput(), paymentMethod: 'PIX', boleto: undefined },
    });
    expect(
      (await fetchPdf(`${server.url}/api/transactions/${pix.body.id}/boleto.pdf`, merchant.keys)).status,
    ).toBe(404);
    // left for a person to look at (test-output/ is not committed)
    mkdirSync('test-output', { recursive: true });
    writeFileSync(path.join('test-output', 'boleto.png'), readFileSync(path.join(dir, 'payer.png')));
  });
  it('says it has no value while the sandbox is on, across the page', async () => {
    const sale = await issue();
    const pdf = await fetchPdf(`${server.url}/api/transactions/${sale.id}/boleto.pdf`, merchant.keys);
    expect(pdf.status).toBe(200);
    const file = path.join(dir, 'sandbox.pdf');
    writeFileSync(file, pdf.bytes);
    const text = execFileSync('pdftotext', [file, '-'], { encoding: 'utf8' });
    expect(text).toContain('SEM VALOR — MODO DE TESTE');
    // across the page: from one margin to the other, at its middle, in letters larger than any other
    const boxes = execFileSync('pdftotext', ['-bbox', file, '-'], { encoding: 'utf8' });
    const word = (w: string) => {
      const m = new RegExp(
        `<word xMin="([\\d.]+)" yMin="([\\d.]+)" xMax="([\\d.]+)" yMax="([\\d.]+)">${w}</word>`,
      ).exec(boxes);
      expect(m, w).not.toBeNull();
      return { xMin: Number(m![1]), yMin: Number(m![2]), xMax: Number(m![3]), yMax: Number(m![4]) };
    };
    const [first, last] = [word('SEM'), word('TESTE')];
    expect(last.xMax - first.xMin).toBeGreaterThan(595.28 * 0.8);
    expect(first.yMin).toBeLessThan(841.89 / 2);
    expect(first.yMax).toBeGreaterThan(841.89 / 2);
    expect(first.yMax - first.yMin).toBeGreaterThan(25);
    // the same boleto rendered without the sandbox carries no mark (the mark is part of what is cached)
    const row = await boletoOfSale(server.runtime.platform.db, Number(sale.id));
    expect(row).not.toBeNull();
    const plain = Buffer.from(await renderBoletoPdf(row!, server.runtime.platform.config.boleto, false));
    const plainText = execFileSync('pdftotext', ['-', '-'], { input: plain, encoding: 'utf8' });
    expect(plainText).toContain('Linha digitável');
    expect(plainText).not.toContain('MODO DE TESTE');
    // drawn again later (a restart empties the cache): the same bytes, dated when the boleto was issued
    await new Promise((r) => setTimeout(r, 1100));
    const again = Buffer.from(await renderBoletoPdf(row!, server.runtime.platform.config.boleto, false));
    expect(again.equals(plain)).toBe(true);
    // its page names each of its two fonts once (drawn line by line, they were named again for every line)
    const fonts = (await PDFDocument.load(plain))
      .getPage(0)
      .node.Resources()
      ?.lookup(PDFName.of('Font'), PDFDict);
    expect(fonts?.keys().length).toBe(2);
    const info = execFileSync('pdfinfo', ['-isodates', '-'], {
      input: plain,
      encoding: 'utf8',
      env: { ...process.env, TZ: 'UTC' },
    });
    expect(info).toMatch(new RegExp(`CreationDate:\\s+${row!.created_at.toISOString().slice(0, 10)}`));
  });

  it('says it must not be paid once its sale is cancelled, through both doors', async () => {
    const sale = await issue();
    const url = sale.boleto.pdfUrl.replace(/^http:\/\/localhost:\d+/, server.url);
    const textOf = (bytes: Buffer) =>
      execFileSync('pdftotext', ['-', '-'], { input: bytes, encoding: 'utf8' });
    // fetched (and cached) while payable: no mark
    expect(textOf((await fetchPdf(url)).bytes)).not.toContain('CANCELADO');
    const cancelled = await call('POST', `${server.url}/api/transactions/${sale.id}/cancel`, {
      headers: merchant.keys,
    });
    expect(cancelled.status, cancelled.text).toBe(200);
    for (const pdf of [
      await fetchPdf(url),
      await fetchPdf(`${server.url}/api/transactions/${sale.id}/boleto.pdf`, merchant.keys),
    ]) {
      expect(pdf.status).toBe(200);
      const text = textOf(pdf.bytes);
      expect(text).toContain('CANCELADO — NÃO PAGUE');
      // and nothing to pay it with: no Pix (QR code or copy-and-paste), no line to type, no barcode
      expect(text).toContain('Este boleto foi cancelado e não pode ser pago');
      expect(text).not.toContain('Pague com Pix');
      expect(text.replace(/\s/g, '')).not.toContain(sale.boleto.pixCopyPaste.slice(0, 40));
      expect(text.replace(/\D/g, '')).not.toContain(sale.boleto.digitableLine);
      // zbarimg exits 4 when it finds no symbol
      const found = await decode(pdf.bytes, `cancelled-${sale.id}`).catch((err: { code?: number }) =>
        err.code === 4 ? [] : Promise.reject(err),
      );
      expect(found).toEqual([]);
    }
  });
});
