import { beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, type TestMerchant } from './factories.js';
import { type CallOptions, call } from './http.js';
import type { TestServer } from './server.js';

/** The error body families an API-key route answers 401 in (spec, Errors). */
export type KeyErrorShape = 'A' | 'D' | 'E';

export interface ApiKeyRoute {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** A path the route answers, e.g. `/api/public/balance`, or a function of the merchant under test. */
  path: string | ((merchant: TestMerchant) => string);
  body?: unknown;
  /** The shape of this endpoint's 401 body. */
  shape: KeyErrorShape;
  /** The route opens by the panel session too (a door of its own): a session alone is let in, not refused. */
  sessionOpens?: boolean;
}

/** The exact 401 body of each shape: the code where the shape puts it, and nothing else. */
export function unauthorizedBody(shape: KeyErrorShape): unknown {
  switch (shape) {
    case 'A':
      return { success: false, error: { code: 'UNAUTHORIZED', message: expect.any(String) } };
    case 'D':
      return { message: expect.any(String), error: 'UNAUTHORIZED' };
    case 'E':
      return { error: 'UNAUTHORIZED', message: expect.any(String) };
  }
}

export const IP_NOT_ALLOWED_BODY = { message: expect.any(String), code: 'IP_NOT_ALLOWED' };

/**
 * Registers the checks every API-key route must pass: missing headers, one header missing, unknown public
 * key, wrong private key, another account's private key, a revoked key and a panel session alone → 401 in
 * the route's shape; valid keys from a source IP outside the account's list → 403 IP_NOT_ALLOWED (shape B).
 * Call inside a test file whose `server()` is started in beforeAll.
 */
export function describeApiKeyAuth(route: ApiKeyRoute, server: () => TestServer): void {
  describe(`${route.method} ${typeof route.path === 'string' ? route.path : '(path)'} refuses bad keys`, () => {
    let owner: TestMerchant;
    let other: TestMerchant;
    let revokedKeys: Record<string, string>;

    beforeAll(async () => {
      owner = await createMerchant(server(), 'Auth Check Owner');
      other = await createMerchant(server(), 'Auth Check Other');
      const extra = await call<{ id: number; publicKey: string; privateKey: string }>(
        'POST',
        `${server().url}/api/credentials`,
        { headers: owner.panel },
      );
      expect(extra.status).toBe(201);
      const del = await call('DELETE', `${server().url}/api/credentials/${extra.body.id}`, {
        headers: owner.panel,
      });
      expect(del.status).toBe(204);
      revokedKeys = {
        'x-api-public-key': extra.body.publicKey,
        'x-api-private-key': extra.body.privateKey,
      };
    });

    const send = (headers: Record<string, string>, extra: Partial<CallOptions> = {}) => {
      const path = typeof route.path === 'string' ? route.path : route.path(owner);
      return call(route.method, `${server().url}${path}`, {
        headers,
        ...(route.body !== undefined ? { body: route.body } : {}),
        ...extra,
      });
    };
    const expect401 = async (headers: Record<string, string>) => {
      const res = await send(headers);
      expect(res.status, res.text).toBe(401);
      expect(res.body).toEqual(unauthorizedBody(route.shape));
    };

    it('401 without key headers', () => expect401({}));
    it('401 with only the public key', () =>
      expect401({ 'x-api-public-key': owner.keys['x-api-public-key']! }));
    it('401 with only the private key', () =>
      expect401({ 'x-api-private-key': owner.keys['x-api-private-key']! }));
    it('401 with empty key headers', () => expect401({ 'x-api-public-key': '', 'x-api-private-key': '' }));
    it('401 with an unknown public key', () =>
      expect401({ ...owner.keys, 'x-api-public-key': `pk_${'A'.repeat(32)}` }));
    it('401 with a wrong private key', () =>
      expect401({ ...owner.keys, 'x-api-private-key': `${owner.keys['x-api-private-key']}x` }));
    it("401 with another account's private key", () =>
      expect401({ ...owner.keys, 'x-api-private-key': other.keys['x-api-private-key']! }));
    it('401 with the keys swapped', () =>
      expect401({
        'x-api-public-key': owner.keys['x-api-private-key']!,
        'x-api-private-key': owner.keys['x-api-public-key']!,
      }));
    it('401 with a revoked key', () => expect401(revokedKeys));
    if (route.sessionOpens) {
      it('a panel session alone is its other door: let in, not refused', async () => {
        const res = await call(
          route.method,
          `${server().url}${typeof route.path === 'string' ? route.path : route.path(owner)}`,
          { headers: owner.panel, ...(route.body !== undefined ? { body: route.body } : {}) },
        );
        expect(res.status, res.text).not.toBe(401);
      });
    } else it('401 with a panel session and no keys', () => expect401(owner.panel));

    it('403 IP_NOT_ALLOWED (shape B) from a source IP outside the list, then passes once allowed', async () => {
      const put = await call('PUT', `${server().url}/api/settings/allowed-ips`, {
        headers: other.panel,
        body: { ips: ['203.0.113.7'] },
      });
      expect(put.status).toBe(200);
      const refused = await call(
        route.method,
        `${server().url}${typeof route.path === 'string' ? route.path : route.path(other)}`,
        { headers: other.keys, ...(route.body !== undefined ? { body: route.body } : {}) },
      );
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual(IP_NOT_ALLOWED_BODY);

      const reset = await call('PUT', `${server().url}/api/settings/allowed-ips`, {
        headers: other.panel,
        body: { ips: ['127.0.0.1'] },
      });
      expect(reset.status).toBe(200);
      const passed = await call(
        route.method,
        `${server().url}${typeof route.path === 'string' ? route.path : route.path(other)}`,
        { headers: other.keys, ...(route.body !== undefined ? { body: route.body } : {}) },
      );
      expect(passed.status).not.toBe(401);
      expect(passed.body).not.toEqual(IP_NOT_ALLOWED_BODY);
    });

    it('valid keys pass authentication', async () => {
      const res = await send(owner.keys);
      expect(res.status).not.toBe(401);
      expect(res.body).not.toEqual(IP_NOT_ALLOWED_BODY);
    });
  });
}

export interface PanelRoute {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string | ((merchant: TestMerchant) => string);
  body?: unknown;
}

const SHAPE_A = (code: string) => ({ success: false, error: { code, message: expect.any(String) } });

/**
 * Registers the checks every panel-session route must pass: no session, a forged session cookie and API
 * keys alone → 401 UNAUTHORIZED (shape A); a state-changing request without X-CSRF-Token, or with another
 * session's token → 403 FORBIDDEN (shape A).
 */
export function describePanelAuth(route: PanelRoute, server: () => TestServer): void {
  describe(`${route.method} ${typeof route.path === 'string' ? route.path : '(path)'} needs a panel session`, () => {
    let owner: TestMerchant;
    let other: TestMerchant;
    beforeAll(async () => {
      owner = await createMerchant(server(), 'Panel Check Owner');
      other = await createMerchant(server(), 'Panel Check Other');
    });
    const send = (headers: Record<string, string>) =>
      call(
        route.method,
        `${server().url}${typeof route.path === 'string' ? route.path : route.path(owner)}`,
        {
          headers,
          ...(route.body !== undefined ? { body: route.body } : {}),
        },
      );

    it('401 without a session', async () => {
      const res = await send({});
      expect(res.status).toBe(401);
      expect(res.body).toEqual(SHAPE_A('UNAUTHORIZED'));
    });
    it('401 with a forged session cookie', async () => {
      const res = await send({
        cookie: 'gw_session=forged-session-token-000000000000000000000',
        'x-csrf-token': 'x',
      });
      expect(res.status).toBe(401);
      expect(res.body).toEqual(SHAPE_A('UNAUTHORIZED'));
    });
    it('401 with API keys alone', async () => {
      const res = await send(owner.keys);
      expect(res.status).toBe(401);
      expect(res.body).toEqual(SHAPE_A('UNAUTHORIZED'));
    });
    if (route.method !== 'GET') {
      it('403 FORBIDDEN without X-CSRF-Token, or with another session’s token', async () => {
        const variants: Record<string, string>[] = [
          { cookie: owner.cookie },
          { cookie: owner.cookie, 'x-csrf-token': other.csrf },
        ];
        for (const headers of variants) {
          const res = await send(headers);
          expect(res.status).toBe(403);
          expect(res.body).toEqual(SHAPE_A('FORBIDDEN'));
        }
      });
    }
  });
}
