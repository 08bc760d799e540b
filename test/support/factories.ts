import { randomBytes } from 'node:crypto';
import { createAccount } from '../../src/accounts/accounts.js';
import { call } from './http.js';
import type { TestServer } from './server.js';

export interface TestMerchant {
  accountId: number;
  email: string;
  password: string;
  name: string;
  cookie: string;
  csrf: string;
  publicKey: string;
  privateKey: string;
  credentialId: number;
  /** Headers for API-key routes. */
  keys: Record<string, string>;
  /** Headers for panel routes (session cookie and CSRF token). */
  panel: Record<string, string>;
}

/** A merchant with a random email, logged in to the panel, with one API key pair. */
export async function createMerchant(server: TestServer, name = 'Test Merchant'): Promise<TestMerchant> {
  const email = `m-${randomBytes(6).toString('hex')}@example.com`;
  const password = `pw-${randomBytes(8).toString('hex')}`;
  const account = await createAccount(server.runtime.platform.db, { name, email, password });
  const { cookie, csrf } = await login(server, email, password);
  const panel = { cookie, 'x-csrf-token': csrf };
  const cred = await call<{ id: number; publicKey: string; privateKey: string }>(
    'POST',
    `${server.url}/api/credentials`,
    {
      headers: panel,
    },
  );
  if (cred.status !== 201) throw new Error(`credential creation failed: ${cred.status} ${cred.text}`);
  return {
    accountId: account.id,
    email,
    password,
    name,
    cookie,
    csrf,
    publicKey: cred.body.publicKey,
    privateKey: cred.body.privateKey,
    credentialId: cred.body.id,
    keys: { 'x-api-public-key': cred.body.publicKey, 'x-api-private-key': cred.body.privateKey },
    panel,
  };
}

export async function login(server: TestServer | { url: string }, email: string, password: string) {
  const res = await call<{ csrfToken: string }>('POST', `${server.url}/api/auth/login`, {
    body: { email, password },
  });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${res.text}`);
  const setCookie = res.headers['set-cookie'];
  const raw = Array.isArray(setCookie) ? setCookie[0]! : setCookie!;
  return { cookie: raw.split(';')[0]!, csrf: res.body.csrfToken, setCookie: raw };
}
