import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEY_SCOPES, type KeyScope, scopeCovers, widestKeyScope } from '../../src/auth/key-scopes.js';
import { may, ROLES, type Role } from '../../src/auth/roles.js';
import { openDispute, paidSale } from '../disputes/fixtures.js';
import { saleInput } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { fundMerchant } from '../support/ledger.js';
import { Mailbox } from '../support/mailbox.js';
import { startServer, type TestServer } from '../support/server.js';
import { addTeamUser, type TeamUser } from '../support/team.js';

/**
 * Keys bounded by their creator: a role never gains through a key what it cannot do itself. Walks every role ×
 * key scope × money-moving route of the API, and every role × money-moving route of the panel.
 */
let server: TestServer;
let mailbox: Mailbox;
let owner: TestMerchant;
const users = new Map<Role, TeamUser | TestMerchant>();

interface Issued {
  id: number;
  scope: KeyScope;
  publicKey: string;
  privateKey: string;
}
interface Listed {
  id: number;
  publicKey: string;
  scope: KeyScope;
  needsReview: boolean;
}

beforeAll(async () => {
  mailbox = await Mailbox.start();
  server = await startServer({ env: { SMTP_URL: mailbox.url } });
  owner = await createMerchant(server, 'Escopos');
  await fundMerchant(server.runtime.platform.db, owner.accountId, 10_000_000);
  users.set('owner', owner);
  for (const role of ROLES.filter((r) => r !== 'owner')) {
    users.set(role, await addTeamUser(server.url, owner, mailbox, role));
  }
});
afterAll(async () => {
  await server?.close();
  await mailbox?.stop();
});

const db = () => server.runtime.platform.db;
const keysOf = (k: { publicKey: string; privateKey: string }) => ({
  'x-api-public-key': k.publicKey,
  'x-api-private-key': k.privateKey,
});
const panelOf = (role: Role) => users.get(role)!.panel;

/** Revokes every key of the account (an account holds at most 20 live pairs). */
async function revokeAll(): Promise<void> {
  const all = await call<Listed[]>('GET', `${server.url}/api/credentials`, { headers: owner.panel });
  for (const k of all.body.filter((c) => c.publicKey !== owner.keys['x-api-public-key'])) {
    await call('DELETE', `${server.url}/api/credentials/${k.id}`, { headers: owner.panel });
  }
}

async function counts(): Promise<string> {
  const [row] = await db().query(
    `SELECT (SELECT count(*) FROM api_credentials) AS keys, (SELECT count(*) FROM withdrawals) AS withdrawals,
            (SELECT count(*) FROM sale_refunds) AS refunds, (SELECT count(*) FROM sales) AS sales,
            (SELECT count(*) FROM payment_links) AS links,
            (SELECT string_agg(status, ',' ORDER BY id) FROM disputes) AS disputes`,
  );
  return JSON.stringify(row);
}

/** What each money-moving API route needs, and a request that it would take (each makes or moves something). */
interface MoneyRoute {
  name: string;
  need: KeyScope;
  /** shape of the scope refusal: the cashout's business-rule body, the transaction body elsewhere */
  refusal: 'C' | 'D';
  send: (headers: Record<string, string>) => Promise<{ status: number; body: unknown; text: string }>;
  ok: number;
}

async function moneyRoutes(): Promise<MoneyRoute[]> {
  const sale = await paidSale(server, owner, 100_000);
  const disputed = await paidSale(server, owner, 5_000);
  const dispute = await openDispute(server, owner, disputed.uuid, { kind: 'med', reason: 'fraude' });
  expect(dispute.status, dispute.text).toBe(201);
  let n = 0;
  return [
    {
      name: 'POST /api/transactions/{id}/refund',
      need: 'full',
      refusal: 'D',
      ok: 202,
      send: (headers) =>
        call('POST', `${server.url}/api/transactions/${sale.uuid}/refund`, {
          headers: { ...headers, 'idempotency-key': `r-${++n}` },
          body: { amountCents: 100 },
        }),
    },
    {
      name: 'POST /api/public/cashout',
      need: 'full',
      refusal: 'C',
      ok: 201,
      send: (headers) =>
        call('POST', `${server.url}/api/public/cashout`, {
          headers,
          body: { amount: 100, pixKey: 'loja@example.com', pixKeyType: 'EMAIL' },
        }),
    },
    {
      name: 'POST /api/disputes/{id}/accept',
      need: 'full',
      refusal: 'D',
      // the first full key accepts it; the next ones find it closed (409): let through either way
      ok: 200,
      send: (headers) => call('POST', `${server.url}/api/disputes/${dispute.body.id}/accept`, { headers }),
    },
    {
      name: 'POST /api/transactions',
      need: 'charges',
      refusal: 'D',
      ok: 201,
      send: (headers) =>
        call('POST', `${server.url}/api/transactions`, {
          headers,
          body: saleInput({
            amount: 1000,
            items: [{ title: 'Camiseta', unitPrice: 1000, quantity: 1, tangible: true }],
          }),
        }),
    },
    {
      name: 'POST /api/payment-links',
      need: 'charges',
      refusal: 'D',
      ok: 201,
      send: (headers) =>
        call('POST', `${server.url}/api/payment-links`, {
          headers,
          body: { title: 'Camiseta', amountCents: 5000, methods: ['PIX'] },
        }),
    },
  ];
}

describe('keys bounded by their creator', () => {
  it('each role makes keys only within its own permissions (403 shape A, nothing made); absent scope: its widest', async () => {
    for (const role of ROLES) {
      const widest = widestKeyScope(role);
      for (const scope of KEY_SCOPES) {
        const before = await counts();
        const res = await call<Issued>('POST', `${server.url}/api/credentials`, {
          headers: panelOf(role),
          body: { name: `${role}-${scope}`, scope },
        });
        const allowed = widest !== null && scopeCovers(widest, scope);
        if (allowed) {
          expect(res.status, `${role} ${scope}: ${res.text}`).toBe(201);
          expect(res.body.scope).toBe(scope);
        } else {
          expect({ role, scope, status: res.status, body: res.body }).toMatchObject({
            status: 403,
            body: { success: false, error: { code: 'FORBIDDEN' } },
          });
          expect(await counts()).toBe(before);
        }
      }
      const absent = await call<Issued>('POST', `${server.url}/api/credentials`, {
        headers: panelOf(role),
        body: { name: `${role}-default` },
      });
      if (widest === null) expect(absent.status).toBe(403);
      else expect(absent.body.scope).toBe(widest);
      await revokeAll();
    }
    expect(widestKeyScope('developer')).toBe('charges');
    expect(widestKeyScope('owner')).toBe('full');
  });

  it('a key is revoked only by someone who could have made it: a developer revokes read and charges keys, never a full one', async () => {
    const made: Record<string, Issued & { id: number }> = {};
    for (const scope of KEY_SCOPES) {
      const res = await call<Issued & { id: number }>('POST', `${server.url}/api/credentials`, {
        headers: owner.panel,
        body: { name: `owner-${scope}`, scope },
      });
      expect(res.status, res.text).toBe(201);
      made[scope] = res.body;
    }
    const revoke = (scope: string, role: Role) =>
      call<{ success: boolean; error: { code: string; message: string } }>(
        'DELETE',
        `${server.url}/api/credentials/${made[scope]!.id}`,
        { headers: panelOf(role) },
      );
    const full = await revoke('full', 'developer');
    expect(full.status).toBe(403);
    expect(full.body).toMatchObject({ success: false, error: { code: 'FORBIDDEN' } });
    expect(full.body.error.message).toContain('may revoke keys of scope "charges" at most');
    // nothing changed: the full key still works
    const balance = await call('GET', `${server.url}/api/public/balance`, { headers: keysOf(made.full!) });
    expect(balance.status).toBe(200);
    expect((await revoke('charges', 'developer')).status).toBe(204);
    expect((await revoke('read', 'developer')).status).toBe(204);
    expect((await revoke('full', 'admin')).status).toBe(204);
    await revokeAll();
  });

  it('every role × key scope × money-moving API route: refused by scope with 403 (shape D, C on the cashout) and nothing written, or let through', async () => {
    const routes = await moneyRoutes();
    let refused = 0;
    let through = 0;
    for (const role of ROLES) {
      for (const scope of KEY_SCOPES) {
        const made = await call<Issued>('POST', `${server.url}/api/credentials`, {
          headers: panelOf(role),
          body: { name: `walk ${role} ${scope}`, scope },
        });
        if (made.status !== 201) continue; // the role may not hold it: refused above
        for (const route of routes) {
          const before = await counts();
          const res = await route.send(keysOf(made.body));
          const label = `${role} ${scope} ${route.name}`;
          if (scopeCovers(scope, route.need)) {
            expect([route.ok, 409], `${label}: ${res.text}`).toContain(res.status);
            through++;
          } else {
            expect(res.status, `${label}: ${res.text}`).toBe(403);
            expect(res.body, label).toEqual(
              route.refusal === 'C'
                ? { errorType: 'FORBIDDEN', message: expect.stringContaining(`"${route.need}"`) }
                : { error: 'FORBIDDEN', message: expect.stringContaining(`"${route.need}"`) },
            );
            expect(await counts(), label).toBe(before);
            refused++;
          }
        }
      }
      await revokeAll();
    }
    expect(refused).toBeGreaterThan(10);
    expect(through).toBeGreaterThan(10);
  });

  it('every non-GET API-key route of the document states its scope, and a read key is refused on each', async () => {
    const doc = await call<{
      paths: Record<string, Record<string, { security?: object[]; 'x-key-scope'?: string }>>;
    }>('GET', `${server.url}/openapi.json`);
    const read = await call<Issued>('POST', `${server.url}/api/credentials`, {
      headers: owner.panel,
      body: { name: 'leitura', scope: 'read' },
    });
    const before = await counts();
    let walked = 0;
    for (const [path, ops] of Object.entries(doc.body.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const byKey = (op.security ?? []).some((s) => 'publicKey' in s);
        if (!byKey) continue;
        expect(`${method} ${path} ${op['x-key-scope']}`).toMatch(/ (read|charges|full)$/);
        if (method === 'get' || method === 'head') continue;
        const res = await call(method.toUpperCase(), `${server.url}${path.replace(/\{[^}]+\}/g, '1')}`, {
          headers: keysOf(read.body),
          body: {},
        });
        expect(res.status, `${method} ${path}`).toBe(403);
        walked++;
      }
    }
    expect(walked).toBeGreaterThan(10);
    expect(await counts()).toBe(before);
  });

  it('every role × money-moving panel route: a role without the permission gets 403 and nothing is written', async () => {
    const sale = await paidSale(server, owner, 50_000);
    const disputed = await paidSale(server, owner, 5_000);
    const dispute = await openDispute(server, owner, disputed.uuid, { kind: 'med', reason: 'fraude' });
    const routes = [
      {
        permission: 'sales.create' as const,
        path: `/api/sales/${sale.uuid}/refund`,
        body: { amountCents: 100 },
      },
      {
        permission: 'sales.create' as const,
        path: '/api/sales',
        body: saleInput({
          amount: 1000,
          items: [{ title: 'Camiseta', unitPrice: 1000, quantity: 1, tangible: true }],
        }),
      },
      {
        permission: 'withdrawals.create' as const,
        path: '/api/withdrawals',
        body: { amount: 100, pixKey: 'loja@example.com', pixKeyType: 'EMAIL' },
      },
      {
        permission: 'disputes.respond' as const,
        path: `/api/panel/disputes/${dispute.body.id}/accept`,
        body: {},
      },
      {
        permission: 'sales.create' as const,
        path: '/api/panel/payment-links',
        body: { title: 'Camiseta', amountCents: 5000, methods: ['PIX'] },
      },
    ];
    for (const role of ROLES) {
      for (const route of routes) {
        const before = await counts();
        const res = await call<{ error?: { code: string; message: string } }>(
          'POST',
          `${server.url}${route.path}`,
          {
            headers: panelOf(role),
            body: route.body,
          },
        );
        if (may(role, route.permission)) {
          expect(
            res.status === 403 && /Your role/.test(res.body.error?.message ?? ''),
            `${role} ${route.path}`,
          ).toBe(false);
        } else {
          expect(res.status, `${role} ${route.path}`).toBe(403);
          expect(res.body.error?.code).toBe('FORBIDDEN');
          expect(await counts(), `${role} ${route.path}`).toBe(before);
        }
      }
    }
  });

  it('a key wider than its demoted or removed creator is listed for review and keeps working until narrowed, rolled or revoked', async () => {
    await revokeAll();
    const mail = mailbox;
    const admin = await addTeamUser(server.url, owner, mail, 'admin');
    const key = await call<Issued>('POST', `${server.url}/api/credentials`, {
      headers: admin.panel,
      body: { name: 'do admin', scope: 'full' },
    });
    expect(key.status).toBe(201);
    const listed = async () =>
      (await call<Listed[]>('GET', `${server.url}/api/credentials`, { headers: owner.panel })).body.find(
        (k) => k.id === key.body.id,
      )!;
    expect((await listed()).needsReview).toBe(false);

    const demoted = await call('PUT', `${server.url}/api/users/${admin.id}`, {
      headers: owner.panel,
      body: { role: 'developer' },
    });
    expect(demoted.status, demoted.text).toBe(200);
    expect(await listed()).toMatchObject({ scope: 'full', needsReview: true });
    // it keeps working meanwhile
    const sale = await paidSale(server, owner, 10_000);
    const refund = (headers: Record<string, string>) =>
      call('POST', `${server.url}/api/transactions/${sale.uuid}/refund`, {
        headers,
        body: { amountCents: 100 },
      });
    expect((await refund(keysOf(key.body))).status).toBe(202);
    // expired, it opens nothing: nothing to review (its expiry moved by hand here, and back)
    const expire = (at: string | null) =>
      server.runtime.platform.db.query('UPDATE api_credentials SET expires_at = $2 WHERE id = $1', [
        key.body.id,
        at,
      ]);
    await expire('2020-01-01T00:00:00Z');
    expect(await listed()).toMatchObject({ scope: 'full', needsReview: false });
    await expire(null);

    // the demoted user cannot roll it (a full key is beyond a developer), nor widen anything
    const roll = await call('POST', `${server.url}/api/credentials/${key.body.id}/roll`, {
      headers: admin.panel,
      body: { graceHours: 0 },
    });
    expect(roll.status).toBe(403);
    // nor narrow it: a key is changed, as it is revoked, only by someone who could have made it (narrowing a
    // full key to read, then revoking it, would be a developer revoking a full key)
    const devNarrow = await call<{ success: boolean; error: { code: string; message: string } }>(
      'PATCH',
      `${server.url}/api/credentials/${key.body.id}`,
      { headers: admin.panel, body: { scope: 'read' } },
    );
    expect(devNarrow.status).toBe(403);
    expect(devNarrow.body).toMatchObject({ success: false, error: { code: 'FORBIDDEN' } });
    expect(devNarrow.body.error.message).toMatch(/may change keys of scope "charges" at most, not "full"/);
    expect(await listed()).toMatchObject({ scope: 'full', needsReview: true });
    expect(
      (await call('DELETE', `${server.url}/api/credentials/${key.body.id}`, { headers: admin.panel })).status,
    ).toBe(403);
    // an owner narrows it: same keys, now charges, vouched for by the owner
    const narrowed = await call<Listed>('PATCH', `${server.url}/api/credentials/${key.body.id}`, {
      headers: owner.panel,
      body: { scope: 'charges' },
    });
    expect(narrowed.status, narrowed.text).toBe(200);
    expect(narrowed.body).toMatchObject({ scope: 'charges', needsReview: false });
    const after = await refund(keysOf(key.body));
    expect(after.status).toBe(403);
    expect(after.body).toMatchObject({ error: 'FORBIDDEN' });
    // narrowing never widens
    const widen = await call('PATCH', `${server.url}/api/credentials/${key.body.id}`, {
      headers: owner.panel,
      body: { scope: 'full' },
    });
    expect(widen.status).toBe(400);

    // a removed creator: their charges key is listed for review too
    const dev = await addTeamUser(server.url, owner, mail, 'developer');
    const devKey = await call<Issued>('POST', `${server.url}/api/credentials`, {
      headers: dev.panel,
      body: { name: 'do dev' },
    });
    expect(devKey.body.scope).toBe('charges');
    expect((await call('DELETE', `${server.url}/api/users/${dev.id}`, { headers: owner.panel })).status).toBe(
      204,
    );
    const all = await call<Listed[]>('GET', `${server.url}/api/credentials`, { headers: owner.panel });
    expect(all.body.find((k) => k.id === devKey.body.id)).toMatchObject({ needsReview: true });
    const [audit] = await db().query<{ n: number }>(
      `SELECT count(*)::int AS n FROM audit_log WHERE account_id = $1 AND action = 'credential.narrowed'`,
      [owner.accountId],
    );
    expect(audit!.n).toBe(1);
  });
});
