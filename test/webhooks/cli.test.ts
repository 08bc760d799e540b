/** `gateway webhooks create`: a webhook registered from the command line, its secret printed once. */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lines, runGateway } from '../support/cli.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let m: TestMerchant;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startServer({ workers: false });
  m = await createMerchant(server, 'Loja CLI');
  // the server's DATA_DIR: its generated SECRETS_KEY seals the webhook's secret as the server reads it
  env = { DATABASE_URL: server.databaseUrl, DATA_DIR: server.env.DATA_DIR! };
});
afterAll(() => server?.close());

const gateway = (...args: string[]) => runGateway(args, env);

describe('gateway webhooks create', () => {
  it('registers the webhook, prints its secret once, and the account sees it', async () => {
    const r = await gateway(
      'webhooks',
      'create',
      '--account',
      String(m.accountId),
      '--url',
      'https://loja.example.com/webhooks',
      '--events',
      'sale.paid, sale.refunded',
      '--json',
    );
    expect(r.code, r.stderr).toBe(0);
    const made = JSON.parse(r.stdout) as { id: number; secret: string; events: string[] };
    expect(made.secret).toMatch(/^whsec_/);
    expect(made.events).toEqual(['sale.paid', 'sale.refunded']);
    const listed = await call<{ id: number; webhookUrl: string }[]>('GET', `${server.url}/api/webhook`, {
      headers: m.keys,
    });
    expect(listed.body).toEqual([
      expect.objectContaining({ id: made.id, webhookUrl: 'https://loja.example.com/webhooks' }),
    ]);
    expect(JSON.stringify(listed.body)).not.toContain(made.secret);
  });

  it('seals with SECRETS_KEY alone in production, and never with a key that does not open the secrets stored', async () => {
    const create = (extra: Record<string, string>) =>
      runGateway(
        [
          'webhooks',
          'create',
          '--account',
          String(m.accountId),
          '--url',
          'https://loja.example.com/outro',
          '--events',
          '*',
        ],
        { ...env, NODE_ENV: 'production', ...extra },
      );
    const count = async () =>
      (await call<unknown[]>('GET', `${server.url}/api/webhook`, { headers: m.keys })).body.length;
    const before = await count();
    // another key: refused before anything is sealed (a secret sealed with it would leave no key that opens all)
    const wrong = await create({ SECRETS_KEY: randomBytes(32).toString('base64') });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(
      /^error: invalid configuration: SECRETS_KEY does not open the secrets already stored \(webhook \d+\): /,
    );
    expect(await count()).toBe(before);
    // the key they were sealed with, and no POSTBACK_SECRET: the command signs nothing
    const key = readFileSync(path.join(env.DATA_DIR!, 'dev-secrets-key'), 'utf8').trim();
    const right = await create({ SECRETS_KEY: key });
    expect(right.code, right.stderr).toBe(0);
    expect(await count()).toBe(before + 1);
  });

  it('a bad event list is one error line, and so are missing options (exit 2)', async () => {
    const bad = await gateway(
      'webhooks',
      'create',
      '--account',
      String(m.accountId),
      '--url',
      'https://x.example.com/',
      '--events',
      'sale.nope',
    );
    expect(bad.code).toBe(2);
    expect(lines(bad.stderr)).toHaveLength(1);
    const usage = await gateway('webhooks', 'create', '--account', String(m.accountId));
    expect(usage.code).toBe(2);
    // an account that does not exist is named, as keys create names it (not the database's constraint)
    const nobody = await gateway(
      'webhooks',
      'create',
      '--account',
      '987654321',
      '--url',
      'https://x.example.com/',
      '--events',
      'sale.paid',
    );
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toBe('error: no account with id 987654321\n');
  });
});
