import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Disputes } from '../../src/disputes/disputes.js';
import { eventsOf } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { Mailbox } from '../support/mailbox.js';
import { startServer, type TestServer } from '../support/server.js';
import { addTeamUser, type TeamUser } from '../support/team.js';
import { waitUntil } from '../support/wait.js';
import { balanceOf, type DisputeBody, disputeMerchant, openDispute, paidSale } from './fixtures.js';

let server: TestServer;
let mailbox: Mailbox;
let owner: TestMerchant;
let finance: TeamUser;
let viewer: TeamUser;
let developer: TeamUser;

beforeAll(async () => {
  mailbox = await Mailbox.start();
  server = await startServer({ env: { SMTP_URL: mailbox.url } });
  owner = await disputeMerchant(server);
  finance = await addTeamUser(server.url, owner, mailbox, 'finance');
  viewer = await addTeamUser(server.url, owner, mailbox, 'viewer');
  developer = await addTeamUser(server.url, owner, mailbox, 'developer');
});
afterAll(async () => {
  await server?.close();
  await mailbox?.stop();
});

const db = () => server.runtime.platform.db;
const PDF = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(2000, 0x20)]);
const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.alloc(500, 1),
]);
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(700, 2)]);
const ZIP = Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(300, 3)]);

async function newDispute(m: TestMerchant = owner): Promise<DisputeBody> {
  const sale = await paidSale(server, m, 10000);
  const res = await openDispute(server, m, sale.uuid, { kind: 'med', reason: 'Pagador relata golpe' });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

interface Sent {
  status: number;
  body: Record<string, unknown>;
}

async function sendEvidence(
  url: string,
  headers: Record<string, string>,
  files: { name: string; type: string; content: Buffer }[],
  text?: string,
): Promise<Sent> {
  const form = new FormData();
  for (const f of files) form.append('files', new Blob([f.content], { type: f.type }), f.name);
  if (text !== undefined) form.append('text', text);
  const res = await fetch(url, { method: 'POST', headers, body: form });
  const raw = await res.text();
  return { status: res.status, body: raw ? (JSON.parse(raw) as Record<string, unknown>) : {} };
}

const apiEvidence = (id: string, files: Parameters<typeof sendEvidence>[2], text?: string, m = owner) =>
  sendEvidence(`${server.url}/api/disputes/${id}/evidence`, m.keys, files, text);

async function stored(id: string) {
  const [row] = await db().query<{ status: string; n: number }>(
    `SELECT d.status, (SELECT count(*)::int FROM dispute_evidence e WHERE e.dispute_id = d.id) AS n
       FROM disputes d WHERE d.uuid = $1`,
    [id],
  );
  return row!;
}

describe('reading disputes', () => {
  it('GET /api/disputes pages newest first, filters by status; GET /api/disputes/{id} gives one', async () => {
    const m = await disputeMerchant(server);
    const a = await newDispute(m);
    const b = await newDispute(m);
    const c = await newDispute(m);
    const first = await call<{ data: DisputeBody[]; nextCursor: string | null }>(
      'GET',
      `${server.url}/api/disputes?limit=2`,
      { headers: m.keys },
    );
    expect(first.status, first.text).toBe(200);
    expect(first.body.data.map((d) => d.id)).toEqual([c.id, b.id]);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await call<{ data: DisputeBody[]; nextCursor: string | null }>(
      'GET',
      `${server.url}/api/disputes?limit=2&cursor=${first.body.nextCursor}`,
      { headers: m.keys },
    );
    expect(second.body).toEqual({ data: [a], nextCursor: null });

    await call('POST', `${server.url}/api/disputes/${b.id}/accept`, { headers: m.keys });
    const accepted = await call<{ data: DisputeBody[] }>(
      'GET',
      `${server.url}/api/disputes?status=accepted`,
      {
        headers: m.keys,
      },
    );
    expect(accepted.body.data.map((d) => d.id)).toEqual([b.id]);
    const bad = await call('GET', `${server.url}/api/disputes?status=open`, { headers: m.keys });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: expect.anything() });

    // one sale's disputes (its page lists them); a saleId that is no uuid → 400
    const ofSale = await call<{ data: DisputeBody[] }>(
      'GET',
      `${server.url}/api/disputes?saleId=${a.saleId.toUpperCase()}`,
      { headers: m.keys },
    );
    expect(ofSale.status, ofSale.text).toBe(200);
    expect(ofSale.body.data.map((d) => d.id)).toEqual([a.id]);
    const badSale = await call('GET', `${server.url}/api/disputes?saleId=12`, { headers: m.keys });
    expect(badSale.status).toBe(400);
    expect(badSale.body).toMatchObject({ message: 'saleId must be a sale id (its uuid)' });
    const otherSale = await call<{ data: DisputeBody[] }>(
      'GET',
      `${server.url}/api/disputes?saleId=${a.saleId}`,
      { headers: (await createMerchant(server)).keys },
    );
    expect(otherSale.body.data).toEqual([]);

    const one = await call<DisputeBody>('GET', `${server.url}/api/disputes/${a.id}`, { headers: m.keys });
    expect(one.body).toEqual(a);
  });

  it("another account's dispute, an unknown id and a non-uuid are 404 (shape D on the API, A in the panel)", async () => {
    const d = await newDispute();
    const other = await createMerchant(server);
    const foreign = await call('GET', `${server.url}/api/disputes/${d.id}`, { headers: other.keys });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ message: expect.any(String), error: 'NOT_FOUND' });
    expect((await call('GET', `${server.url}/api/disputes/12`, { headers: owner.keys })).status).toBe(404);
    const panel = await call('GET', `${server.url}/api/panel/disputes/${d.id}`, { headers: other.panel });
    expect(panel.status).toBe(404);
    expect(panel.body).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
    const list = await call<{ data: DisputeBody[] }>('GET', `${server.url}/api/disputes`, {
      headers: other.keys,
    });
    expect(list.body.data).toEqual([]);
  });

  it('every role reads in the panel; only owner, admin and finance answer or accept', async () => {
    const d = await newDispute();
    for (const user of [viewer, developer, finance]) {
      const res = await call<{ data: DisputeBody[] }>('GET', `${server.url}/api/panel/disputes`, {
        headers: user.panel,
      });
      expect(res.status).toBe(200);
      expect(res.body.data.map((x) => x.id)).toContain(d.id);
    }
    for (const user of [viewer, developer]) {
      const up = await sendEvidence(`${server.url}/api/panel/disputes/${d.id}/evidence`, user.panel, [
        { name: 'a.pdf', type: 'application/pdf', content: PDF },
      ]);
      expect(up.status).toBe(403);
      expect(up.body).toMatchObject({ error: { code: 'FORBIDDEN' } });
      const accept = await call('POST', `${server.url}/api/panel/disputes/${d.id}/accept`, {
        headers: user.panel,
      });
      expect(accept.status).toBe(403);
    }
    expect(await stored(d.id)).toEqual({ status: 'needs_response', n: 0 });
    const up = await sendEvidence(
      `${server.url}/api/panel/disputes/${d.id}/evidence`,
      finance.panel,
      [{ name: 'entrega.pdf', type: 'application/pdf', content: PDF }],
      'Produto entregue.',
    );
    expect(up.status, JSON.stringify(up.body)).toBe(200);
    expect(up.body).toMatchObject({ status: 'under_review' });
    // the answer is in the audit log, naming the user; an acceptance by an API key names the key
    const other = await newDispute();
    const accepted = await call('POST', `${server.url}/api/disputes/${other.id}/accept`, {
      headers: owner.keys,
    });
    expect(accepted.status).toBe(200);
    const audit = await server.runtime.platform.db.query<{
      action: string;
      actor_type: string;
      actor_label: string;
    }>(`SELECT action, actor_type, actor_label FROM audit_log WHERE target IN ($1, $2) ORDER BY id`, [
      `dispute:${d.id}`,
      `dispute:${other.id}`,
    ]);
    expect(audit).toEqual([
      { action: 'dispute.answered', actor_type: 'user', actor_label: finance.email },
      { action: 'dispute.accepted', actor_type: 'api_key', actor_label: expect.any(String) },
    ]);
  });
});

describe('answering', () => {
  it('files sniffed by content, the text; the dispute goes under_review and takes no second answer', async () => {
    const d = await newDispute();
    const res = await apiEvidence(
      d.id,
      [
        { name: 'comprovante.png', type: 'image/png', content: PDF }, // a PDF, whatever its name says
        { name: '../../etc/foto.jpg', type: 'application/octet-stream', content: JPEG },
        { name: 'tela.png', type: 'image/png', content: PNG },
      ],
      'O cliente recebeu o produto em 20/11.',
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      id: d.id,
      status: 'under_review',
      closedAt: null,
      // the answer's text is shown back as it was sent
      responseText: 'O cliente recebeu o produto em 20/11.',
    });
    expect(res.body.evidence).toEqual([
      { id: expect.any(String), name: 'comprovante.png', contentType: 'application/pdf', size: PDF.length },
      { id: expect.any(String), name: 'foto.jpg', contentType: 'image/jpeg', size: JPEG.length },
      { id: expect.any(String), name: 'tela.png', contentType: 'image/png', size: PNG.length },
    ]);
    const [row] = await db().query<{ content: Buffer }>(
      `SELECT e.content FROM dispute_evidence e JOIN disputes d ON d.id = e.dispute_id
        WHERE d.uuid = $1 ORDER BY e.id LIMIT 1`,
      [d.id],
    );
    expect(Buffer.compare(row!.content, PDF)).toBe(0);

    const again = await apiEvidence(d.id, [{ name: 'b.pdf', type: 'application/pdf', content: PDF }]);
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ message: expect.any(String), error: 'DISPUTE_CLOSED' });
    expect((await stored(d.id)).n).toBe(3);
  });

  it('accept: accepted and closed, dispute.lost, the amount stays out; accepting again → 409', async () => {
    const m = await disputeMerchant(server);
    const d = await newDispute(m);
    const res = await call<DisputeBody>('POST', `${server.url}/api/disputes/${d.id}/accept`, {
      headers: m.keys,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ status: 'accepted', closedAt: expect.any(String) });
    expect(await balanceOf(server, m)).toMatchObject({ available: -300, blocked: 0 });
    const [row] = await db().query<{ id: number }>('SELECT id FROM disputes WHERE uuid = $1', [d.id]);
    expect((await eventsOf(server, 'dispute', row!.id)).map((e) => e.event_type)).toEqual([
      'dispute.opened',
      'dispute.lost',
    ]);
    const again = await call('POST', `${server.url}/api/disputes/${d.id}/accept`, { headers: m.keys });
    expect(again.status).toBe(409);
    const late = await apiEvidence(
      d.id,
      [{ name: 'a.pdf', type: 'application/pdf', content: PDF }],
      undefined,
      m,
    );
    expect(late.status).toBe(409);
    expect((await stored(d.id)).n).toBe(0);
  });
});

describe('bad answers: a clear 4xx and nothing stored', () => {
  const cases: [string, () => Parameters<typeof sendEvidence>[2], string | undefined, number, string][] = [
    [
      'eleven files',
      () =>
        Array.from({ length: 11 }, (_, i) => ({ name: `f${i}.pdf`, type: 'application/pdf', content: PDF })),
      undefined,
      400,
      'VALIDATION_ERROR',
    ],
    [
      'a file over 5 MB',
      () => [
        { name: 'a.pdf', type: 'application/pdf', content: PDF },
        {
          name: 'big.pdf',
          type: 'application/pdf',
          content: Buffer.concat([PDF, Buffer.alloc(5 * 1024 * 1024 - PDF.length + 1)]),
        },
      ],
      undefined,
      413,
      'PAYLOAD_TOO_LARGE',
    ],
    [
      'a zip named .pdf',
      () => [
        { name: 'a.pdf', type: 'application/pdf', content: PDF },
        { name: 'b.pdf', type: 'application/pdf', content: ZIP },
      ],
      undefined,
      415,
      'UNSUPPORTED_FILE_TYPE',
    ],
    ['a text of 5,001 characters', () => [], 'é'.repeat(5001), 400, 'VALIDATION_ERROR'],
    ['nothing at all', () => [], undefined, 400, 'VALIDATION_ERROR'],
  ];
  for (const [what, files, text, status, code] of cases) {
    it(`${what} → ${status} ${code}`, async () => {
      const d = await newDispute();
      const res = await apiEvidence(d.id, files(), text);
      expect(res.status, JSON.stringify(res.body)).toBe(status);
      expect(res.body).toEqual({ message: expect.any(String), error: code });
      expect(await stored(d.id)).toEqual({ status: 'needs_response', n: 0 });
    });
  }

  it('exactly 10 files of 5 MB and a text of 5,000 characters are taken', async () => {
    const d = await newDispute();
    const big = Buffer.concat([PDF, Buffer.alloc(5 * 1024 * 1024 - PDF.length)]);
    const files = Array.from({ length: 10 }, (_, i) => ({
      name: `f${i}.pdf`,
      type: 'application/pdf',
      content: big,
    }));
    const res = await apiEvidence(d.id, files, 'é'.repeat(5000));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await stored(d.id)).toEqual({ status: 'under_review', n: 10 });
  });

  it("another account's dispute → 404, a JSON body → 400; nothing stored", async () => {
    const d = await newDispute();
    const other = await createMerchant(server);
    const foreign = await apiEvidence(
      d.id,
      [{ name: 'a.pdf', type: 'application/pdf', content: PDF }],
      'x',
      other,
    );
    expect(foreign.status).toBe(404);
    const json = await call('POST', `${server.url}/api/disputes/${d.id}/evidence`, {
      headers: owner.keys,
      body: { text: 'oi' },
    });
    expect(json.status).toBe(400);
    expect(await stored(d.id)).toEqual({ status: 'needs_response', n: 0 });
  });
});

describe('the deadline', () => {
  it('unanswered at respondBy: lost by default; an answer after it → 409', async () => {
    const m = await disputeMerchant(server);
    const d = await newDispute(m);
    await db().query(`UPDATE disputes SET respond_by = now() - interval '1 second' WHERE uuid = $1`, [d.id]);
    const late = await apiEvidence(
      d.id,
      [{ name: 'a.pdf', type: 'application/pdf', content: PDF }],
      undefined,
      m,
    );
    expect(late.status).toBe(409);
    // nor can it be accepted any more: it is lost, by the deadline's job
    const accept = await call<{ error: string }>('POST', `${server.url}/api/disputes/${d.id}/accept`, {
      headers: m.keys,
    });
    expect(accept.status, accept.text).toBe(409);
    expect(accept.body.error).toBe('DISPUTE_CLOSED');
    const disputes = new Disputes(
      db(),
      server.runtime.platform.queue,
      { queue: server.runtime.platform.queue, key: server.runtime.platform.config.secretsKey },
      'http://localhost',
    );
    expect(await disputes.expireOverdue()).toBeGreaterThanOrEqual(1);
    const after = await call<DisputeBody>('GET', `${server.url}/api/disputes/${d.id}`, { headers: m.keys });
    expect(after.body).toMatchObject({ status: 'lost', closedAt: expect.any(String) });
    expect(await balanceOf(server, m)).toMatchObject({ available: -300, blocked: 0 });
  });

  it('e-mails owners, admins and finance on opening and two days before respondBy, once', async () => {
    const d = await newDispute();
    const opened = await mailbox.waitFor(finance.email, /Contestação aberta/);
    expect(opened.text).toContain('R$ 100,00');
    // the deadline in São Paulo's time, and says so
    expect(opened.text).toMatch(/até \d{2}\/\d{2}\/\d{4}, \d{2}:\d{2}:\d{2} \(horário de Brasília\)/);
    // its link opens that dispute in the panel, not the list alone (the mailbox holds earlier disputes' too)
    const link = `/#/contestacoes/${d.id}`;
    const ofThis = await waitUntil(() =>
      mailbox.to(finance.email).find((e) => /Contestação aberta/.test(e.subject) && e.text.includes(link)),
    );
    expect(ofThis.html).toContain(link);
    await mailbox.waitFor(owner.email, /Contestação aberta/);
    await db().query(`UPDATE disputes SET respond_by = now() + interval '1 day' WHERE uuid = $1`, [d.id]);
    const disputes = new Disputes(
      db(),
      server.runtime.platform.queue,
      { queue: server.runtime.platform.queue, key: server.runtime.platform.config.secretsKey },
      'http://localhost',
    );
    await disputes.remindDue();
    await disputes.remindDue();
    // a day left: the subject names the day, not "two days"
    const ends = new Date(Date.now() + 86_400_000).toLocaleDateString('pt-BR', {
      timeZone: 'America/Sao_Paulo',
    });
    const reminder = await mailbox.waitFor(finance.email, /prazo de resposta termina em/);
    expect(reminder.subject).toContain(`o prazo de resposta termina em ${ends}`);
    const toViewer = mailbox.messages.filter(
      (x) => x.to.includes(viewer.email) && /Contestação/.test(x.subject),
    );
    expect(toViewer).toEqual([]);
    const reminders = mailbox.messages.filter(
      (x) => x.to.includes(finance.email) && /prazo de resposta termina/.test(x.subject),
    );
    expect(reminders).toHaveLength(1);
  });
});
