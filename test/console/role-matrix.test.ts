/**
 * Every console route (/api/ops/…) × every operator role × a merchant's session × no session: each gets the
 * documented answer. A role below the route's gets 403 (audited when it tried a change); a merchant's
 * session, like none, gets 401; a role at or above it gets past the role check (whatever the route answers).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR_ROLES, type OperatorRole, roleCovers } from '../../src/operators/index.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { createOperator, type TestOperator } from '../support/operators.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let merchant: TestMerchant;
const operators = new Map<OperatorRole, TestOperator>();
type Envelope = { success: false; error: { code: string } };

beforeAll(async () => {
  server = await startServer();
  merchant = await createMerchant(server);
  for (const role of OPERATOR_ROLES) operators.set(role, await createOperator(server, role));
});
afterAll(() => server?.close());

interface ConsoleRoute {
  method: string;
  path: string;
  role: OperatorRole;
}

/** The console routes and the role each needs, as the API document names them (x-operator-role). */
async function consoleRoutes(): Promise<ConsoleRoute[]> {
  const doc = await call<{ paths: Record<string, Record<string, { 'x-operator-role'?: OperatorRole }>> }>(
    'GET',
    `${server.url}/openapi.json`,
  );
  const routes: ConsoleRoute[] = [];
  for (const [path, ops] of Object.entries(doc.body.paths)) {
    if (!path.startsWith('/api/ops/') || path.startsWith('/api/ops/auth/')) continue;
    for (const [method, op] of Object.entries(ops)) {
      expect(op['x-operator-role'], `${method} ${path}`).toBeDefined();
      routes.push({ method: method.toUpperCase(), path, role: op['x-operator-role']! });
    }
  }
  return routes;
}

const urlOf = (path: string) => `${server.url}${path.replace(/\{[^}]+\}/g, '999999')}`;
const bodyOf = (method: string) => (method === 'GET' ? undefined : {});

describe("the console's role matrix", () => {
  it('every route × every role × a merchant session × no session', async () => {
    const routes = await consoleRoutes();
    expect(routes.length).toBeGreaterThanOrEqual(18);
    const wrong: string[] = [];
    for (const route of routes) {
      const anonymous = await call<Envelope>(route.method, urlOf(route.path), { body: bodyOf(route.method) });
      if (anonymous.status !== 401 || anonymous.body.error?.code !== 'UNAUTHORIZED') {
        wrong.push(`${route.method} ${route.path} without a session: ${anonymous.status}`);
      }
      const asMerchant = await call<Envelope>(route.method, urlOf(route.path), {
        headers: merchant.panel,
        body: bodyOf(route.method),
      });
      if (asMerchant.status !== 401)
        wrong.push(`${route.method} ${route.path} as a merchant: ${asMerchant.status}`);
      for (const role of OPERATOR_ROLES) {
        const res = await call<Envelope>(route.method, urlOf(route.path), {
          headers: operators.get(role)!.ops,
          body: bodyOf(route.method),
        });
        const allowed = roleCovers(role, route.role);
        const ok = allowed
          ? res.status !== 401 && res.status !== 403 && res.status < 500
          : res.status === 403 && res.body.error?.code === 'FORBIDDEN';
        if (!ok)
          wrong.push(`${route.method} ${route.path} as ${role}: ${res.status} ${JSON.stringify(res.body)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("a support operator's attempt to suspend is refused, changes nothing and is audited", async () => {
    const support = operators.get('support')!;
    const res = await call<Envelope>('POST', `${server.url}/api/ops/accounts/${merchant.accountId}/suspend`, {
      headers: support.ops,
      body: { reason: 'tentativa' },
    });
    expect(res.status).toBe(403);
    const [row] = await server.runtime.platform.db.query<{ status: string }>(
      'SELECT status FROM accounts WHERE id = $1',
      [merchant.accountId],
    );
    expect(row!.status).toBe('active');
    const audit = await call<{ data: { action: string; operatorEmail: string; target: string }[] }>(
      'GET',
      `${server.url}/api/ops/audit?accountId=${merchant.accountId}`,
      { headers: support.ops },
    );
    expect(audit.body.data[0]).toMatchObject({
      action: 'denied',
      operatorEmail: support.email,
      target: `POST /api/ops/accounts/${merchant.accountId}/suspend`,
    });
  });

  it('the operator audit log refuses UPDATE, DELETE and TRUNCATE to the gateway’s own database user', async () => {
    const { db } = server.runtime.platform;
    const [before] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM operator_audit');
    expect(before!.n).toBeGreaterThan(0);
    for (const sql of [
      "UPDATE operator_audit SET operator_email = 'someone-else'",
      'DELETE FROM operator_audit',
      'TRUNCATE operator_audit',
    ]) {
      await expect(db.query(sql), sql).rejects.toThrow(/append-only/);
    }
    const [after] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM operator_audit');
    expect(after!.n).toBeGreaterThanOrEqual(before!.n);
  });
});
