import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describePanelAuth } from '../support/auth-checks.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let merchant: TestMerchant;
let stranger: TestMerchant;

interface Issued {
  id: number;
  publicKey: string;
  privateKey: string;
  createdAt: string;
}

const issue = (m: TestMerchant) =>
  call<Issued>('POST', `${server.url}/api/credentials`, { headers: m.panel });
const balance = (keys: Record<string, string>) =>
  call('GET', `${server.url}/api/public/balance`, { headers: keys });
const keysOf = (c: Issued) => ({ 'x-api-public-key': c.publicKey, 'x-api-private-key': c.privateKey });

beforeAll(async () => {
  server = await startServer();
  merchant = await createMerchant(server);
  stranger = await createMerchant(server);
});
afterAll(() => server?.close());

describe('POST /api/credentials', () => {
  it('issues a pk_/sk_ pair with at least 128 random bits each, shown once, not cached', async () => {
    const res = await issue(merchant);
    expect(res.status).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(Object.keys(res.body).sort()).toEqual([
      'createdAt',
      'expiresAt',
      'id',
      'name',
      'privateKey',
      'publicKey',
      'scope',
    ]);
    expect(res.body.publicKey).toMatch(/^pk_[A-Za-z0-9_-]{22,}$/);
    expect(res.body.privateKey).toMatch(/^sk_[A-Za-z0-9_-]{22,}$/);
    // base64url: 6 bits per character; 22 characters carry 132 bits
    expect(Buffer.from(res.body.privateKey.slice(3), 'base64url').length).toBeGreaterThanOrEqual(16);
    expect(Buffer.from(res.body.publicKey.slice(3), 'base64url').length).toBeGreaterThanOrEqual(16);
    expect(new Date(res.body.createdAt).toISOString()).toBe(res.body.createdAt);
    expect((await balance(keysOf(res.body))).status).toBe(200);
  });

  it('never issues the same key twice', async () => {
    const pairs = await Promise.all(Array.from({ length: 10 }, () => issue(merchant)));
    const privates = new Set(pairs.map((p) => p.body.privateKey));
    const publics = new Set(pairs.map((p) => p.body.publicKey));
    expect(privates.size).toBe(10);
    expect(publics.size).toBe(10);
  });

  it('stores the private key only as a hash', async () => {
    const res = await issue(merchant);
    const { db } = server.runtime.platform;
    const [row] = await db.query<Record<string, unknown>>('SELECT * FROM api_credentials WHERE id = $1', [
      res.body.id,
    ]);
    const stored = JSON.stringify(row);
    expect(stored).toContain(res.body.publicKey);
    expect(stored).not.toContain(res.body.privateKey);
    expect(stored).not.toContain(res.body.privateKey.slice(3));
    const dump = await db.query<{ t: string }>(
      `SELECT string_agg(t::text, '') AS t FROM (
         SELECT row_to_json(c)::text AS t FROM api_credentials c
         UNION ALL SELECT row_to_json(s)::text FROM panel_sessions s) x`,
    );
    expect(dump[0]!.t).not.toContain(res.body.privateKey.slice(3));
  });

  it('needs a panel session, not API keys', async () => {
    const res = await call('POST', `${server.url}/api/credentials`, { headers: merchant.keys });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      success: false,
      error: { code: 'UNAUTHORIZED', message: expect.any(String) },
    });
  });
});

describe('GET /api/credentials', () => {
  it('lists active pairs newest first, without private keys', async () => {
    const m = await createMerchant(server);
    const second = await issue(m);
    const third = await issue(m);
    const res = await call<Array<Record<string, unknown>>>('GET', `${server.url}/api/credentials`, {
      headers: { cookie: m.cookie },
    });
    expect(res.status).toBe(200);
    expect(res.body.map((c) => c.id)).toEqual([third.body.id, second.body.id, m.credentialId]);
    for (const c of res.body) {
      expect(Object.keys(c).sort()).toEqual([
        'createdAt',
        'createdBy',
        'expiresAt',
        'id',
        'lastUsedAt',
        'lastUsedIp',
        'name',
        'needsReview',
        'publicKey',
        'scope',
      ]);
    }
    expect(res.text).not.toContain('sk_');
    expect(res.body[0]).toMatchObject({ publicKey: third.body.publicKey, lastUsedAt: null });
    // who made each: the owner who signed in
    expect(res.body.map((c) => c.createdBy)).toEqual([m.email, m.email, m.email]);
  });

  it('records when a pair was last used', async () => {
    const m = await createMerchant(server);
    expect((await balance(m.keys)).status).toBe(200);
    await expect
      .poll(
        async () => {
          const res = await call<Array<{ lastUsedAt: string | null }>>(
            'GET',
            `${server.url}/api/credentials`,
            {
              headers: { cookie: m.cookie },
            },
          );
          return res.body[0]?.lastUsedAt;
        },
        { timeout: 10_000 },
      )
      .toEqual(expect.any(String));
  });

  it("never shows another account's pairs", async () => {
    const res = await call<Array<{ id: number }>>('GET', `${server.url}/api/credentials`, {
      headers: { cookie: stranger.cookie },
    });
    expect(res.body.map((c) => c.id)).toEqual([stranger.credentialId]);
  });
});

describe('DELETE /api/credentials/{id}', () => {
  it('revokes: 204, the pair fails on the very next request and leaves the list', async () => {
    const pair = await issue(merchant);
    expect((await balance(keysOf(pair.body))).status).toBe(200); // now cached
    const del = await call('DELETE', `${server.url}/api/credentials/${pair.body.id}`, {
      headers: merchant.panel,
    });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    const after = await balance(keysOf(pair.body));
    expect(after.status).toBe(401);
    const list = await call<Array<{ id: number }>>('GET', `${server.url}/api/credentials`, {
      headers: { cookie: merchant.cookie },
    });
    expect(list.body.map((c) => c.id)).not.toContain(pair.body.id);
    expect((await balance(merchant.keys)).status).toBe(200); // other pairs unaffected
  });

  it("404 for another account's credential, which keeps working", async () => {
    const del = await call('DELETE', `${server.url}/api/credentials/${stranger.credentialId}`, {
      headers: merchant.panel,
    });
    expect(del.status).toBe(404);
    expect(del.body).toEqual({ success: false, error: { code: 'NOT_FOUND', message: expect.any(String) } });
    expect((await balance(stranger.keys)).status).toBe(200);
  });

  it('404 for an unknown or already revoked id; 400 for a non-numeric id', async () => {
    const pair = await issue(merchant);
    const url = `${server.url}/api/credentials/${pair.body.id}`;
    expect((await call('DELETE', url, { headers: merchant.panel })).status).toBe(204);
    expect((await call('DELETE', url, { headers: merchant.panel })).status).toBe(404);
    expect(
      (await call('DELETE', `${server.url}/api/credentials/999999999`, { headers: merchant.panel })).status,
    ).toBe(404);
    const bad = await call('DELETE', `${server.url}/api/credentials/abc`, { headers: merchant.panel });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
  });
});

describePanelAuth({ method: 'POST', path: '/api/credentials' }, () => server);
describePanelAuth({ method: 'GET', path: '/api/credentials' }, () => server);
describePanelAuth({ method: 'DELETE', path: (m) => `/api/credentials/${m.credentialId}` }, () => server);
describePanelAuth({ method: 'GET', path: '/api/settings/allowed-ips' }, () => server);
describePanelAuth({ method: 'PUT', path: '/api/settings/allowed-ips', body: { ips: [] } }, () => server);
describePanelAuth({ method: 'POST', path: '/api/auth/logout' }, () => server);
describePanelAuth({ method: 'GET', path: '/api/auth/me' }, () => server);
