import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalIp, isPublicAddress } from '../../src/platform/net/ip.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { recordFact, salePostbackBody, saleWebhookBody } from '../support/notifications.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { startServer, type TestServer } from '../support/server.js';
import { waitUntil } from '../support/wait.js';
import { createWebhook } from '../support/webhooks.js';

describe('isPublicAddress', () => {
  it('refuses every special-purpose range, IPv4-mapped forms included', () => {
    const refused = [
      '127.0.0.1',
      '127.255.255.254',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.0.10',
      '169.254.169.254',
      '100.64.0.1',
      '100.127.255.254',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '192.0.2.1',
      '198.18.0.1',
      '240.0.0.1',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      'fd12:3456::1',
      'ff02::1',
      '2001:db8::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '::ffff:169.254.169.254',
      '64:ff9b::7f00:1',
      '2002:7f00:1::',
      // IPv6 forms embedding a refused IPv4: compatible, SIIT, NAT64 (well-known and local-use), 6to4, Teredo
      '::127.0.0.1',
      '::7f00:1',
      '::a00:1',
      '::a9fe:a9fe',
      '::ffff:0:7f00:1',
      '64:ff9b::a00:1',
      '64:ff9b::a9fe:a9fe',
      '64:ff9b:1::808:808',
      '2002:a00:1::1',
      '2002:c0a8:101::1',
      '2001:0:4136:e378:8000:63bf:80ff:fffe', // Teredo whose client is 127.0.0.1
      '2001:0:a00:1::1', // Teredo whose server is 10.0.0.1
      'not-an-ip',
    ];
    for (const ip of refused) expect(isPublicAddress(ip), ip).toBe(false);
    const accepted = [
      '93.184.216.34',
      '8.8.8.8',
      '::ffff:8.8.8.8',
      '::808:808',
      '64:ff9b::808:808',
      '2002:808:808::1',
      '2606:4700:4700::1111',
      '100.128.0.1',
    ];
    for (const ip of accepted) expect(isPublicAddress(ip), ip).toBe(true);
  });

  it('is the classifier the IP allow-list normalises with: IPv4-mapped IPv6 is the IPv4, nothing else', () => {
    for (const form of ['::ffff:1.2.3.4', '::ffff:102:304', '::FFFF:0102:0304']) {
      expect(canonicalIp(form), form).toBe('1.2.3.4');
    }
    // compatible and SIIT forms are not IPv4-mapped: they stay IPv6 (decisions.md) and admit no IPv4 peer
    expect(canonicalIp('::1.2.3.4')).toBe('::102:304');
    expect(canonicalIp('::ffff:0:1.2.3.4')).toBe('::ffff:0:102:304');
    expect(canonicalIp('::1')).toBe('::1');
    expect(canonicalIp('2001:DB8::0:1')).toBe('2001:db8::1');
  });
});

describe('production rules (NODE_ENV=production)', () => {
  let server: TestServer;
  let merchant: TestMerchant;
  let receiver: Receiver;

  beforeAll(async () => {
    server = await startServer({
      env: {
        NODE_ENV: 'production',
        POSTBACK_SECRET: randomBytes(32).toString('base64'),
        SECRETS_KEY: randomBytes(32).toString('base64'),
        SANDBOX: 'off',
        WEBHOOK_RETRY_DELAYS_MS: '100,100',
        WEBHOOK_TIMEOUT_MS: '1000',
      },
    });
    expect(server.runtime.platform.config.webhookAllowPrivate).toBe(false);
    merchant = await createMerchant(server);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await server?.close();
  });

  it('refuses webhook URLs on loopback, private, link-local, CGNAT and other special addresses when saved', async () => {
    const urls = [
      `http://localhost:${receiver.port}/hook`,
      // loopback by name (RFC 6761), resolved or not by this machine
      'http://localhost./hook',
      'http://api.localhost/hook',
      'http://LOCALHOST../hook',
      `${receiver.url}/hook`,
      'http://127.1/',
      'http://2130706433/',
      'http://0x7f000001/',
      'http://[::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://[::ffff:7f00:1]/',
      'http://10.0.0.5/',
      'http://172.20.1.1/',
      'http://192.168.1.1/',
      'http://169.254.169.254/latest/meta-data',
      'http://100.64.0.1/',
      'http://0.0.0.0/',
      'http://224.0.0.1/',
      'http://[fe80::1]/',
      'http://[fd00::1]/',
      'http://[::]/',
      'http://[::127.0.0.1]/',
      'http://[::7f00:1]/',
      'http://[64:ff9b::7f00:1]/',
      'http://[2002:7f00:1::1]/',
      'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/',
    ];
    for (const webhookUrl of urls) {
      const res = await call('POST', `${server.url}/api/webhook`, {
        headers: merchant.panel,
        body: { webhookUrl, events: ['*'] },
      });
      expect(res.status, webhookUrl).toBe(400);
      expect(res.body).toEqual({
        success: false,
        error: { code: 'VALIDATION_ERROR', message: expect.any(String) },
      });
      // the refusal is no DNS oracle: it never says what a name resolves to
      expect(res.text).not.toMatch(/127\.0\.0\.1|::1\b/);
    }
    // a name that does not resolve (yet) is accepted: the connect-time guard checks it at every attempt
    const unresolved = await createWebhook(server, merchant, 'https://hooks.merchant.invalid/hook', ['*']);
    await call('DELETE', `${server.url}/api/webhook/${unresolved.id}`, { headers: merchant.panel });
    const ok = await createWebhook(server, merchant, 'https://93.184.216.34/hook', ['*']);
    const put = await call('PUT', `${server.url}/api/webhook/${ok.id}`, {
      headers: merchant.panel,
      body: { webhookUrl: `http://localhost:${receiver.port}/` },
    });
    expect(put.status).toBe(400);
    await call('DELETE', `${server.url}/api/webhook/${ok.id}`, { headers: merchant.panel });
  });

  it('refuses again at connect time, after DNS resolution (a saved name that now resolves to 127.0.0.1)', async () => {
    const m = await createMerchant(server);
    const byName = await createWebhook(server, m, 'https://93.184.216.34/a', ['sale.paid']);
    const byLiteral = await createWebhook(server, m, 'https://93.184.216.35/b', ['sale.paid']);
    // what a rebinding DNS name amounts to: the target was public when saved and is loopback now
    const { db } = server.runtime.platform;
    await db.query('UPDATE webhooks SET url = $2 WHERE id = $1', [
      byName.id,
      `http://localhost:${receiver.port}/a`,
    ]);
    await db.query('UPDATE webhooks SET url = $2 WHERE id = $1', [
      byLiteral.id,
      `http://[::ffff:127.0.0.1]:${receiver.port}/b`,
    ]);
    await recordFact(server, m.accountId, 'sale.paid');
    const rows = await waitUntil(async () => {
      const r = await db.query<{ status: string; attempts: number; error: string }>(
        `SELECT status, attempts, error FROM notification_deliveries WHERE webhook_id = ANY($1::bigint[])`,
        [[byName.id, byLiteral.id]],
      );
      return r.length === 2 && r.every((x) => x.status !== 'PENDING') ? r : undefined;
    });
    for (const r of rows) {
      expect(r.status).toBe('FAILED');
      expect(r.attempts).toBe(1);
      expect(r.error).toMatch(/^refused: .*public address/);
      expect(r.error).not.toContain('(127.0.0.1)');
    }
    expect(receiver.received).toHaveLength(0);
  });

  it('refuses a postback to a loopback target', async () => {
    const body = saleWebhookBody(merchant.accountId);
    const eventId = await recordFact(server, merchant.accountId, 'sale.paid', {
      body,
      postback: { url: `http://localhost:${receiver.port}/pb`, body: salePostbackBody(body) },
    });
    const row = await waitUntil(async () => {
      const [r] = await server.runtime.platform.db.query<{ status: string; error: string }>(
        `SELECT status, error FROM notification_deliveries WHERE event_id = $1 AND kind = 'postback'`,
        [eventId],
      );
      return r && r.status !== 'PENDING' ? r : undefined;
    });
    expect(row.status).toBe('FAILED');
    expect(row.error).toMatch(/^refused/);
    expect(receiver.received).toHaveLength(0);
  });
});
