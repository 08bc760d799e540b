/**
 * The SDKs' READMEs, run as written: every ```ts (sdk/README.md) and ```python (sdk-python/README.md) block
 * tagged setup, run or background, in order, against a real gateway in its sandbox, with the variables the
 * READMEs tell the reader to set. The receiver each README gives runs in the background; what it printed says
 * that the PIX, boleto and card charges were paid, the partial refund notified, a resent delivery handled
 * once and a forged one refused.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { freePort } from '../support/ports.js';
import { startServer, type TestServer } from '../support/server.js';
import { blocksOf, type Running, type Snippet, snippetsOf, spawnCollecting } from '../support/snippets.js';
import { waitUntil } from '../support/wait.js';
import { deliveries } from '../support/webhooks.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const WORK = path.join(ROOT, 'test-output', 'readme-snippets');
const PYTHON = process.env.PYTHON || 'python3';

let server: TestServer;
const running: Running[] = [];

beforeAll(async () => {
  server = await startServer();
  mkdirSync(WORK, { recursive: true });
});
afterAll(async () => {
  for (const r of running) r.stop();
  await server?.close();
});

interface Language {
  readme: string;
  lang: 'ts' | 'python';
  /** The command that runs one file of code. */
  command: (file: string) => string[];
  ext: string;
}

const LANGUAGES: Language[] = [
  {
    readme: 'sdk/README.md',
    lang: 'ts',
    command: (file) => [process.execPath, '--import', 'tsx', file],
    ext: 'ts',
  },
  { readme: 'sdk-python/README.md', lang: 'python', command: (file) => [PYTHON, file], ext: 'py' },
];

const saleOf = (out: string[], kind: string) =>
  new RegExp(`^${kind} ([0-9a-f-]{36}): `).exec(out.find((l) => l.startsWith(`${kind} `)) ?? '')?.[1];

describe.each(LANGUAGES)('$readme', ({ readme, lang, command, ext }) => {
  it('runs every snippet in order: PIX, boleto and card charges paid, a partial refund, each notified once to the receiver', async () => {
    const markdown = readFileSync(path.join(ROOT, readme), 'utf8');
    const snippets = snippetsOf(markdown, lang);
    expect(snippets.map((s) => s.role)).toEqual(['setup', 'run', 'background', 'run', 'run', 'run', 'run']);
    // no block left out: the Python README's two others are test/sdk/python.test.ts's (its "Use" example, run,
    // and the Django view, compiled)
    expect(blocksOf(markdown, lang)).toHaveLength(snippets.length + (lang === 'python' ? 2 : 0));
    const setup = snippets.find((s) => s.role === 'setup')!.code;

    const merchant = await createMerchant(server, `README ${lang}`);
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      GATEWAY_URL: server.url,
      GATEWAY_PUBLIC_KEY: merchant.publicKey,
      GATEWAY_PRIVATE_KEY: merchant.privateKey,
      WEBHOOK_PORT: String(port),
      PYTHONPATH: path.join(ROOT, 'sdk-python'),
      PYTHONDONTWRITEBYTECODE: '1',
      PYTHONUNBUFFERED: '1', // a terminal shows each line at once; a pipe would hold them
    };
    const files: string[] = [];
    const file = (i: number, s: Snippet) => {
      const name = path.join(WORK, `${lang}-${i}.${ext}`);
      writeFileSync(name, s.role === 'run' ? `${setup}\n${s.code}` : s.code);
      files.push(name);
      return name;
    };
    if (lang === 'ts') {
      // the snippets type-check as the reader's editor would see them (the SDK as installed: sdk/dist)
      snippets.forEach((s, i) => {
        if (s.role !== 'setup') file(i, s);
      });
      try {
        execFileSync(
          path.join(ROOT, 'node_modules', '.bin', 'tsc'),
          [
            '--noEmit',
            '--strict',
            '--target',
            'es2022',
            '--module',
            'nodenext',
            '--types',
            'node',
            '--skipLibCheck',
            ...files,
          ],
          { cwd: ROOT, encoding: 'utf8' },
        );
      } catch (err) {
        throw new Error(`the snippets do not type-check:\n${(err as { stdout: string }).stdout}`);
      }
    }

    let receiver: Running | undefined;
    const outputs: string[][] = [];
    for (const [i, s] of snippets.entries()) {
      if (s.role === 'setup') continue;
      const [cmd, ...args] = command(file(i, s));
      const r = spawnCollecting(cmd!, args, { cwd: WORK, env });
      if (s.role === 'background') {
        running.push(r);
        receiver = r;
        await waitUntil(() => r.out.length > 0, 30_000);
        expect(r.out.join('\n')).not.toMatch(/stderr/);
        continue;
      }
      const code = await r.exited;
      expect(code, `block ${i}:\n${s.code}\n---\n${r.out.join('\n')}`).toBe(0);
      outputs.push(r.out);
      // the README tells the reader to keep the webhook's secret as GATEWAY_WEBHOOK_SECRET
      const secret = /GATEWAY_WEBHOOK_SECRET=(whsec_\S+)/.exec(r.out.join('\n'))?.[1];
      if (secret) env.GATEWAY_WEBHOOK_SECRET = secret;
    }
    expect(env.GATEWAY_WEBHOOK_SECRET).toMatch(/^whsec_/);
    const said = outputs.flat();
    expect(said.join('\n')).not.toMatch(/stderr/);
    const pix = saleOf(said, 'PIX');
    const boleto = saleOf(said, 'boleto');
    const card = saleOf(said, 'card');
    expect([pix, boleto, card].every(Boolean), said.join('\n')).toBe(true);
    expect(said.find((l) => l.startsWith('PIX '))).toMatch(/: PENDENTE, copy and paste 000201/);
    expect(said.find((l) => l.startsWith('boleto '))).toMatch(/: PENDENTE, line \d{47}, PDF http\S+\.pdf$/);
    expect(said.find((l) => l.startsWith('card '))).toMatch(/: PAGO, visa ending 1111$/);
    expect(said).toContainEqual(
      expect.stringMatching(
        new RegExp(`^refund \\S+ of sale ${card}: (pending|succeeded), 5000 cents refunded$`),
      ),
    );

    // what the receiver printed: each event once, typed by its eventType
    const got = receiver!.out;
    const expected = [
      'sale.paid: order pedido-2001 (PIX)',
      'sale.paid: order pedido-2002 (BOLETO)',
      'sale.paid: order pedido-2003 (CREDIT_CARD)',
      'sale.refunded: order pedido-2003, 5000 cents back',
    ];
    await waitUntil(() => expected.every((l) => got.includes(l)), 30_000).catch(() => {
      throw new Error(`the receiver printed:\n${got.join('\n')}`);
    });

    // the sales as the gateway has them
    const lookup = async (id: string) =>
      (
        await call<{ status: string; refundedAmount: number }>(
          'GET',
          `${server.url}/api/transactions/${id}`,
          { headers: merchant.keys },
        )
      ).body;
    expect(await lookup(pix!)).toMatchObject({ status: 'PAGO' });
    expect(await lookup(boleto!)).toMatchObject({ status: 'PAGO' });
    expect(await lookup(card!)).toMatchObject({ status: 'PAGO', refundedAmount: 5000 });

    // a resent delivery (same event id) is answered 200 and handled no second time
    const [hook] = (
      await call<{ id: number }[]>('GET', `${server.url}/api/webhook`, { headers: merchant.panel })
    ).body;
    const paid = (await deliveries(server, merchant, hook!.id)).find(
      (d) => d.event === 'sale.paid' && (d.payload as { uuid: string }).uuid === pix,
    );
    expect(paid?.status).toBe('DELIVERED');
    const resent = await call('POST', `${server.url}/api/webhook/deliveries/${paid!.id}/resend`, {
      headers: merchant.panel,
    });
    expect(resent.status, resent.text).toBe(202);
    await waitUntil(() => got.includes(`${paid!.eventId} again: already handled`), 30_000).catch(() => {
      throw new Error(`the receiver printed:\n${got.join('\n')}`);
    });
    expect(got.filter((l) => l === 'sale.paid: order pedido-2001 (PIX)')).toHaveLength(1);

    // a forged delivery is refused
    const forged = await call('POST', `http://127.0.0.1:${port}/webhooks`, {
      body: { eventType: 'sale.paid', status: 'PAGO' },
      headers: {
        'x-service-signature': 'sha256=00',
        'x-service-timestamp': String(Math.floor(Date.now() / 1000)),
      },
    });
    expect(forged.status).toBe(400);
    expect(got.join('\n')).not.toMatch(/stderr|Traceback/);
  });
});
