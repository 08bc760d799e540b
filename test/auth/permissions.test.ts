import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { may, type Permission, ROLES, type Role } from '../../src/auth/roles.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { Mailbox } from '../support/mailbox.js';
import { startServer, type TestServer } from '../support/server.js';
import { addTeamUser } from '../support/team.js';

/**
 * Walks every panel route of the API document with every role: each must declare its permission, a role
 * without it gets 403 FORBIDDEN and nothing is written, a role with it is let through.
 */
let server: TestServer;
let mailbox: Mailbox;
let owner: TestMerchant;
const panels = new Map<Role, Record<string, string>>();

interface Operation {
  tags?: string[];
  'x-permission'?: Permission | 'public';
  'x-roles'?: Role[];
}

beforeAll(async () => {
  mailbox = await Mailbox.start();
  server = await startServer({ env: { SMTP_URL: mailbox.url } });
  owner = await createMerchant(server, 'Permissões');
  panels.set('owner', owner.panel);
  for (const role of ROLES.filter((r) => r !== 'owner')) {
    panels.set(role, (await addTeamUser(server.url, owner, mailbox, role)).panel);
  }
});
afterAll(async () => {
  await server?.close();
  await mailbox?.stop();
});

async function panelRoutes() {
  const doc = await call<{ paths: Record<string, Record<string, Operation>> }>(
    'GET',
    `${server.url}/openapi.json`,
  );
  return Object.entries(doc.body.paths).flatMap(([path, ops]) =>
    Object.entries(ops)
      .filter(([, op]) => op.tags?.includes('panel'))
      .map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
  );
}

/** Row counts of the tables a panel route can write: a refused request must change none of them. */
async function fingerprint(): Promise<string> {
  const [row] = await server.runtime.platform.db.query(
    `SELECT (SELECT count(*) FROM api_credentials) AS keys, (SELECT count(*) FROM webhooks) AS hooks,
            (SELECT count(*) FROM users) AS users, (SELECT count(*) FROM user_tokens) AS tokens,
            (SELECT count(*) FROM withdrawals) AS withdrawals, (SELECT count(*) FROM audit_log) AS audit,
            (SELECT count(*) FROM allowed_ips) AS ips, (SELECT count(*) FROM withdrawal_approval_rules) AS rules,
            (SELECT count(*) FROM panel_sessions) AS sessions, (SELECT count(*) FROM sales) AS sales,
            (SELECT count(*) FROM payment_links) AS links,
            (SELECT string_agg(coalesce(totp_pending_enc, '-'), ',' ORDER BY id) FROM users) AS totp`,
  );
  return JSON.stringify(row);
}

const concrete = (path: string) => path.replace(/\{[^}]+\}/g, '999999999');

describe('panel route permissions', () => {
  it('every panel route declares a permission, and the roles listed are those of roles.ts', async () => {
    const routes = await panelRoutes();
    expect(routes.length).toBeGreaterThan(30);
    const undeclared = routes
      .filter((r) => r.op['x-permission'] === undefined)
      .map((r) => `${r.method} ${r.path}`);
    expect(undeclared).toEqual([]);
    for (const { op } of routes) {
      const permission = op['x-permission']!;
      if (permission === 'public') continue;
      expect(op['x-roles']).toEqual(ROLES.filter((role) => may(role, permission)));
    }
  });

  it('a route a session opens beside a key names its permission in the document too', async () => {
    const doc = await call<{ paths: Record<string, Record<string, Operation>> }>(
      'GET',
      `${server.url}/openapi.json`,
    );
    for (const [path, method] of [
      ['/api/webhook', 'get'],
      ['/api/webhook/{id}/deliveries', 'get'],
    ] as const) {
      const op = doc.body.paths[path]![method]!;
      expect(op['x-permission'], `${method} ${path}`).toBe('integrations');
      expect(op['x-roles']).toEqual(ROLES.filter((role) => may(role, 'integrations')));
    }
  });

  it('a role without the permission gets 403 FORBIDDEN (shape A) and nothing is written', async () => {
    const before = await fingerprint();
    let refused = 0;
    for (const { method, path, op } of await panelRoutes()) {
      const permission = op['x-permission']!;
      if (permission === 'public') continue;
      for (const role of ROLES.filter((r) => !may(r, permission))) {
        const res = await call<{ success: boolean; error: { code: string } }>(
          method,
          `${server.url}${concrete(path)}`,
          {
            headers: panels.get(role)!,
            ...(method === 'GET' || method === 'DELETE' ? {} : { body: {} }),
          },
        );
        expect({ route: `${method} ${path}`, role, status: res.status, body: res.body }).toMatchObject({
          status: 403,
          body: { success: false, error: { code: 'FORBIDDEN' } },
        });
        refused++;
      }
    }
    expect(refused).toBeGreaterThan(30);
    expect(await fingerprint()).toBe(before);
  });

  it('a role with the permission is let through (whatever the route then answers)', async () => {
    const routes = (await panelRoutes()).filter((r) => r.path !== '/api/auth/logout');
    for (const { method, path, op } of routes) {
      const permission = op['x-permission']!;
      if (permission === 'public') continue;
      for (const role of ROLES.filter((r) => may(r, permission))) {
        const res = await call<{ error?: { message?: string } }>(method, `${server.url}${concrete(path)}`, {
          headers: panels.get(role)!,
          ...(method === 'GET' || method === 'DELETE' ? {} : { body: {} }),
        });
        const refusedByRole = res.status === 403 && /Your role/.test(res.body?.error?.message ?? '');
        expect({ route: `${method} ${path}`, role, refusedByRole }).toEqual({
          route: `${method} ${path}`,
          role,
          refusedByRole: false,
        });
        expect(res.status, `${method} ${path} as ${role}`).toBeLessThan(500);
      }
    }
  });
});
