import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setDefaultFeePlan } from '../../src/accounts/fee-plans.js';
import { saleInput } from '../sales/fixtures.js';
import { call } from '../support/http.js';
import { Mailbox } from '../support/mailbox.js';
import { createFeePlan, createOperator, giveFeePlan, type TestOperator } from '../support/operators.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let mailbox: Mailbox;
let admin: TestOperator;

beforeAll(async () => {
  mailbox = await Mailbox.start();
  server = await startServer({ env: { SIGNUP: 'on', SMTP_URL: mailbox.url } });
  admin = await createOperator(server, 'admin');
});
afterAll(async () => {
  await server?.close();
  await mailbox?.stop();
});

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);
const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');

function signupBody(overrides: Record<string, unknown> = {}) {
  return {
    name: 'Loja Nova',
    legalName: 'Loja Nova Comércio Ltda',
    document: '11.222.333/0001-81',
    email: `nova-${randomBytes(5).toString('hex')}@example.com`,
    password: 'uma-senha-bem-longa',
    phone: '+55 11 98765-4321',
    address: {
      street: 'Rua das Flores',
      number: '100',
      district: 'Centro',
      city: 'São Paulo',
      state: 'SP',
      zipCode: '01001-000',
    },
    ...overrides,
  };
}

async function signUp(body = signupBody()) {
  const res = await call<{ csrfToken: string; user: { email: string } }>('POST', `${server.url}/api/signup`, {
    body,
  });
  const raw = [res.headers['set-cookie']].flat()[0] ?? '';
  return { res, panel: { cookie: raw.split(';')[0]!, 'x-csrf-token': res.body.csrfToken } };
}

async function upload(panel: Record<string, string>, kind: string, content: Buffer, name = 'doc.png') {
  const form = new FormData();
  form.append('kind', kind);
  form.append('file', new Blob([content]), name);
  const res = await fetch(`${server.url}/api/onboarding/documents`, {
    method: 'POST',
    headers: panel,
    body: form,
  });
  return {
    status: res.status,
    body: (await res.json()) as Record<string, unknown>,
    retryAfter: res.headers.get('retry-after'),
  };
}

describe('self sign-up and onboarding', () => {
  it('signs up pending_review and logged in; charges wait for approval; documents by content; approval e-mailed', async () => {
    const body = signupBody();
    const { res, panel } = await signUp(body);
    expect(res.status).toBe(201);
    expect(res.body.user.email).toBe(body.email);

    const state = await call<{ status: string; missing: string[] }>('GET', `${server.url}/api/onboarding`, {
      headers: panel,
    });
    expect(state.body.status).toBe('pending_review');
    expect(state.body.missing).toEqual([
      'id_front',
      'id_back',
      'selfie',
      'proof_of_address',
      'company_contract',
    ]);

    const charge = await call<{ success: false; error: { code: string } }>(
      'POST',
      `${server.url}/api/sales`,
      {
        headers: panel,
        body: saleInput(),
      },
    );
    expect(charge.status).toBe(403);
    expect(charge.body.error.code).toBe('ACCOUNT_NOT_ACTIVE');

    // the type is the content's: a text file named .png is refused
    const fake = await upload(panel, 'id_front', Buffer.from('not an image at all'), 'rg.png');
    expect(fake.status).toBe(415);
    const badKind = await upload(panel, 'passport', PNG);
    expect(badKind.status).toBe(400);
    const front = await upload(panel, 'id_front', PNG, 'frente.pdf');
    expect(front.status).toBe(201);
    expect(front.body).toMatchObject({ kind: 'id_front', contentType: 'image/png', sizeBytes: PNG.length });
    expect((await upload(panel, 'company_contract', PDF)).body.contentType).toBe('application/pdf');
    const after = await call<{ missing: string[] }>('GET', `${server.url}/api/onboarding`, {
      headers: panel,
    });
    expect(after.body.missing).toEqual(['id_back', 'selfie', 'proof_of_address']);

    // the console's queue has it, the operator sees the profile and the document as sent
    const queue = await call<{ data: { id: number; kind: string; accountId: number }[] }>(
      'GET',
      `${server.url}/api/ops/reviews?kind=onboarding`,
      { headers: admin.ops },
    );
    const review = queue.body.data.at(-1)!;
    expect(review.kind).toBe('onboarding');
    const detail = await call<{
      account: Record<string, unknown>;
      documents: { id: number; kind: string }[];
    }>('GET', `${server.url}/api/ops/accounts/${review.accountId}`, { headers: admin.ops });
    expect(detail.body.account).toMatchObject({ status: 'pending_review', document: '11222333000181' });
    const doc = detail.body.documents.find((d) => d.kind === 'id_front')!;
    const file = await fetch(`${server.url}/api/ops/accounts/${review.accountId}/documents/${doc.id}`, {
      headers: admin.ops,
    });
    expect(file.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await file.arrayBuffer())).toEqual(PNG);

    // an onboarding decision is the admin's: a risk operator's attempt is refused and in the operator audit log
    const risk = await createOperator(server, 'risk');
    const refused = await call('POST', `${server.url}/api/ops/reviews/${review.id}/approve`, {
      headers: risk.ops,
      body: {},
    });
    expect(refused.status).toBe(403);
    const audit = await call<{ data: { action: string; operatorEmail: string; target: string }[] }>(
      'GET',
      `${server.url}/api/ops/audit?accountId=${review.accountId}`,
      { headers: admin.ops },
    );
    expect(audit.body.data[0]).toMatchObject({
      action: 'denied',
      operatorEmail: risk.email,
      target: `POST /api/ops/reviews/${review.id}/approve`,
    });
    // approval needs prices someone chose: none yet → 409 FEE_PLAN_REQUIRED, nothing changed
    const noPlan = await call<{ error: { code: string } }>(
      'POST',
      `${server.url}/api/ops/reviews/${review.id}/approve`,
      { headers: admin.ops, body: {} },
    );
    expect(noPlan.status).toBe(409);
    expect(noPlan.body.error.code).toBe('FEE_PLAN_REQUIRED');
    await giveFeePlan(server, admin, review.accountId);
    const approved = await call<{ status: string }>(
      'POST',
      `${server.url}/api/ops/reviews/${review.id}/approve`,
      {
        headers: admin.ops,
        body: {},
      },
    );
    expect(approved.status).toBe(200);
    expect(approved.body.status).toBe('approved');
    await mailbox.waitFor(body.email, /Conta aprovada/);
    const open = await call('POST', `${server.url}/api/sales`, { headers: panel, body: saleInput() });
    expect(open.status).not.toBe(403);
  });

  it('a new document of a kind replaces the previous one (kept as its hash), kind before the file, 10 a day', async () => {
    const { panel } = await signUp();
    const first = await upload(panel, 'selfie', PNG);
    expect(first.status).toBe(201);
    const second = await upload(panel, 'selfie', PDF, 'selfie.pdf');
    expect(second.status).toBe(201);
    const state = await call<{ documents: { id: number; kind: string }[] }>(
      'GET',
      `${server.url}/api/onboarding`,
      { headers: panel },
    );
    expect(state.body.documents).toEqual([expect.objectContaining({ id: second.body.id, kind: 'selfie' })]);
    const rows = await server.runtime.platform.db.query<{
      id: string;
      has_content: boolean;
      sha256: Buffer;
      replaced: boolean;
    }>(
      `SELECT id, content IS NOT NULL AS has_content, sha256, replaced_at IS NOT NULL AS replaced
         FROM onboarding_documents WHERE id = ANY($1) ORDER BY id`,
      [[first.body.id, second.body.id]],
    );
    expect(rows.map((r) => [r.has_content, r.replaced])).toEqual([
      [false, true],
      [true, false],
    ]);
    expect(rows[0]!.sha256.toString('hex')).toBe(createHash('sha256').update(PNG).digest('hex'));

    // the kind comes first: a file before it is refused before it is read
    const form = new FormData();
    form.append('file', new Blob([PNG]), 'a.png');
    form.append('kind', 'selfie');
    const fileFirst = await fetch(`${server.url}/api/onboarding/documents`, {
      method: 'POST',
      headers: panel,
      body: form,
    });
    expect(fileFirst.status).toBe(400);
    expect(((await fileFirst.json()) as { error: { message: string } }).error.message).toMatch(/kind/);

    // ten a day: eight more, then the eleventh is refused
    for (let i = 0; i < 8; i++) expect((await upload(panel, 'id_back', PNG)).status).toBe(201);
    const eleventh = await upload(panel, 'id_back', PNG);
    expect(eleventh.status).toBe(429);
    expect(eleventh.body).toMatchObject({ success: false, error: { code: 'RATE_LIMITED' } });
    // told when to retry: once the first of the ten is a day old
    expect(Number(eleventh.retryAfter)).toBeGreaterThan(23 * 3600);
    expect(Number(eleventh.retryAfter)).toBeLessThanOrEqual(24 * 3600);
  });

  it('refuses a document with wrong check digits, and an address already taken', async () => {
    const bad = await signUp(signupBody({ document: '12345678900' }));
    expect(bad.res.status).toBe(400);
    // a state that is no UF: two letters are not enough
    const noUf = await signUp(signupBody({ address: { ...signupBody().address, state: 'XX' } }));
    expect(noUf.res.status).toBe(400);
    expect(noUf.res.text).toContain('address.state must be a UF');
    const body = signupBody();
    expect((await signUp(body)).res.status).toBe(201);
    expect((await signUp({ ...body, document: '52998224725' })).res.status).toBe(409);
  });

  it('a rejected sign-up is closed and told why', async () => {
    const body = signupBody();
    const { panel } = await signUp(body);
    const [row] = await server.runtime.platform.db.query<{ id: string }>(
      'SELECT id FROM accounts WHERE email = $1',
      [body.email],
    );
    const rejected = await call<{ status: string }>(
      'POST',
      `${server.url}/api/ops/accounts/${row!.id}/reject`,
      {
        headers: admin.ops,
        body: { reason: 'documentos ilegíveis' },
      },
    );
    expect(rejected.body.status).toBe('closed');
    const mail = await mailbox.waitFor(body.email, /Cadastro não aprovado/);
    expect(mail.text).toContain('documentos ilegíveis');
    expect((await call('GET', `${server.url}/api/onboarding`, { headers: panel })).status).toBe(401);
  });

  it('a sign-up while FEE_PLAN_DEFAULT names no plan waits for one: made without a plan, its approval asks for one', async () => {
    const name = `Padrão ${randomBytes(4).toString('hex')}`;
    setDefaultFeePlan(name);
    try {
      const body = signupBody();
      const { res } = await signUp(body);
      expect(res.status, res.text).toBe(201);
      const [row] = await server.runtime.platform.db.query<{ id: string; fee_plan_id: string | null }>(
        'SELECT id, fee_plan_id FROM accounts WHERE email = $1',
        [body.email],
      );
      expect(row!.fee_plan_id).toBeNull();
      const approve = () =>
        call<{ status: string; error?: { code: string } }>(
          'POST',
          `${server.url}/api/ops/accounts/${row!.id}/approve`,
          { headers: admin.ops, body: {} },
        );
      const refused = await approve();
      expect(refused.status).toBe(409);
      expect(refused.body.error?.code).toBe('FEE_PLAN_REQUIRED');
      // the plan the default names made: the approval puts the account on it
      const planId = await createFeePlan(server, admin, name);
      const approved = await approve();
      expect(approved.status, approved.text).toBe(200);
      expect(approved.body.status).toBe('active');
      const [after] = await server.runtime.platform.db.query<{ fee_plan_id: string }>(
        'SELECT fee_plan_id FROM accounts WHERE id = $1',
        [row!.id],
      );
      expect(Number(after!.fee_plan_id)).toBe(planId);
    } finally {
      setDefaultFeePlan(null);
    }
  });
});

describe('without SIGNUP', () => {
  it('has no sign-up route', async () => {
    const off = await startServer();
    try {
      expect((await call('POST', `${off.url}/api/signup`, { body: signupBody() })).status).toBe(404);
      // the login page asks whether to offer sign-up: told no, not a 404
      const asked = await call<{ open: boolean }>('GET', `${off.url}/api/signup`);
      expect([asked.status, asked.body]).toEqual([200, { open: false }]);
    } finally {
      await off.close();
    }
  });
});
