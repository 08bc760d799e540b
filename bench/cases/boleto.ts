import { importRetorno, parseRetorno } from '../../src/boletos/retorno.js';
import { boletoSettings } from '../../src/platform/config/boleto.js';
import { Queue } from '../../src/platform/jobs/queue.js';
import { createLogger } from '../../src/platform/observability/logger.js';
import { toSaoPaulo } from '../../src/platform/time/sao-paulo.js';
import { retornoFile } from '../../test/boletos/cnab-files.js';
import { type BenchServer, benchMerchant, measureAround, printRow } from '../lib.js';

const RETURN_LINES = 1000;
const CUSTOMER = {
  name: 'Bench Buyer',
  email: 'buyer@example.com',
  document: '52998224725',
  phone: '5511987654321',
  address: {
    street: 'Rua A',
    number: '1',
    district: 'Centro',
    city: 'São Paulo',
    state: 'SP',
    zipCode: '01001000',
  },
};
const ITEMS = [{ title: 'Item', unitPrice: 10000, quantity: 1, tangible: false }];
const dueDate = () => {
  const today = toSaoPaulo(new Date()).slice(0, 10);
  return new Date(Date.parse(`${today}T00:00:00Z`) + 3 * 86_400_000).toISOString().slice(0, 10);
};

/**
 * Boletos issued per second (POST /api/transactions BOLETO: nosso número, barcode, cobv at the sandbox, QR,
 * the sale and the boleto) vs PIX charges in the same run; the payer's link to a kept PDF per second; and a
 * 1,000-line CNAB 240 return imported (parsed and credited in one transaction), timed.
 */
export async function run(server: BenchServer): Promise<void> {
  const merchant = await benchMerchant(server.db);
  const post = (body: object) => ({
    url: `${server.url}/api/transactions`,
    method: 'POST' as const,
    headers: { ...merchant.keys, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const pix = post({ amount: 10000, paymentMethod: 'PIX', customer: CUSTOMER, items: ITEMS });
  const boleto = post({
    amount: 10000,
    paymentMethod: 'BOLETO',
    customer: CUSTOMER,
    items: ITEMS,
    boleto: { dueDate: dueDate(), finePercent: '2.00', monthlyInterestPercent: '1.00' },
  });
  const issued = await measureAround(pix, boleto);
  printRow({
    name: 'POST /api/transactions BOLETO (boleto híbrido issued)',
    target: issued.target,
    baselineName: 'POST /api/transactions PIX (sandbox), mean of before and after',
    baseline: issued.baseline,
    goal: 0.5,
  });

  const [one] = await server.db.query<{ boleto: { pdfUrl: string } }>(
    "SELECT boleto FROM sales WHERE payment_method = 'BOLETO' AND boleto IS NOT NULL LIMIT 1",
  );
  const pdfPath = new URL(one!.boleto.pdfUrl).pathname;
  const check = await fetch(`${server.url}${pdfPath}`);
  if (check.status !== 200) throw new Error(`GET ${pdfPath} answered ${check.status}: ${await check.text()}`);
  await check.arrayBuffer();
  // the first fetch rendered it: the rest are served from the process's PDF cache
  const pdf = await measureAround(pix, { url: `${server.url}${pdfPath}`, connections: 4 });
  printRow({
    name: 'GET /api/boletos/{token}.pdf (the PDF kept after its one render)',
    target: pdf.target,
    baselineName: 'POST /api/transactions PIX (sandbox), mean of before and after',
    baseline: pdf.baseline,
    goal: 0.25,
  });

  // a return file of 1,000 liquidações of pending boletos, imported in-process against the bench's database
  const settings = boletoSettings({});
  const [{ count }] = (await server.db.query<{ count: number }>(
    "SELECT count(*)::int AS count FROM sales WHERE payment_method = 'BOLETO' AND status = 'PENDENTE'",
  )) as [{ count: number }];
  for (let i = count; i < RETURN_LINES; i++) {
    const res = await fetch(boleto.url, { method: 'POST', headers: boleto.headers, body: boleto.body });
    if (res.status !== 201) throw new Error(`issuing a boleto answered ${res.status}`);
    await res.arrayBuffer();
  }
  const pending = await server.db.query<{ nosso_numero: string }>(
    `SELECT b.nosso_numero FROM boletos b JOIN sales s ON s.id = b.sale_id
      WHERE s.status = 'PENDENTE' ORDER BY b.nosso_numero LIMIT $1`,
    [RETURN_LINES],
  );
  if (pending.length < RETURN_LINES) throw new Error(`only ${pending.length} boletos pending for the return`);
  // paid today, before their due date: at face value (a return file reports payments made)
  const today = toSaoPaulo(new Date()).slice(0, 10);
  const file = retornoFile(
    settings,
    pending.map((p) => ({ nossoNumero: p.nosso_numero, paidCents: 10000, paidOn: today })),
  );
  const queue = await Queue.start(server.db, createLogger('silent'), null);
  try {
    const started = process.hrtime.bigint();
    const report = await importRetorno(server.db, queue, settings, parseRetorno(file, settings, today));
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    console.log(
      `  CNAB 240 return of ${RETURN_LINES} lines: ${seconds.toFixed(2)} s (goal < 5 s), ${JSON.stringify(report)}`,
    );
    if (report.credited !== RETURN_LINES) throw new Error('the return did not credit every line');
  } finally {
    await queue.stop();
  }
}
