import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IP_NOT_ALLOWED_BODY } from '../support/auth-checks.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { type CallOptions, call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let proxied: TestServer; // TRUST_PROXY=127.0.0.1
let merchant: TestMerchant;

const IPS = '/api/settings/allowed-ips';

const putIps = (m: TestMerchant, ips: unknown, s: TestServer = server) =>
  call<{ ips: string[] }>('PUT', `${s.url}${IPS}`, { headers: m.panel, body: { ips } });
const getIps = async (m: TestMerchant, s: TestServer = server) =>
  (await call<{ ips: string[] }>('GET', `${s.url}${IPS}`, { headers: { cookie: m.cookie } })).body.ips;
const balance = (m: TestMerchant, options: Partial<CallOptions> = {}, s: TestServer = server) =>
  call('GET', `${s.url}/api/public/balance`, {
    ...options,
    headers: { ...m.keys, ...options.headers },
  });

beforeAll(async () => {
  server = await startServer();
  proxied = await startServer({ env: { TRUST_PROXY: '127.0.0.1' } });
  merchant = await createMerchant(server);
});
afterAll(async () => {
  await server?.close();
  await proxied?.close();
});

describe('PUT /api/settings/allowed-ips', () => {
  it('starts empty (no restriction) and stores the canonical form: mapped IPv4 as IPv4, RFC 5952 IPv6, no duplicates', async () => {
    const m = await createMerchant(server);
    expect(await getIps(m)).toEqual([]);
    const res = await putIps(m, [
      '2001:DB8:0:0:0:0:0:1',
      '::ffff:10.0.0.1',
      '10.0.0.1',
      '10.0.0.2',
      '10.0.0.2',
      '::FFFF:A00:3',
      '2001:0db8:0000:0000:0000:ff00:0042:8329',
      '2001:db8::ff00:42:8329',
      ' 10.0.0.4 ',
      // not IPv4-mapped (deprecated compatible, SIIT): other IPv6 addresses, which admit no IPv4 peer
      '::10.0.0.5',
      '::ffff:0:10.0.0.6',
    ]);
    expect(res.status).toBe(200);
    const expected = [
      '2001:db8::1',
      '10.0.0.1',
      '10.0.0.2',
      '10.0.0.3',
      '2001:db8::ff00:42:8329',
      '10.0.0.4',
      '::a00:5',
      '::ffff:0:a00:6',
    ];
    expect(res.body).toEqual({ ips: expected });
    expect(await getIps(m)).toEqual(expected);
    expect((await putIps(m, [])).body).toEqual({ ips: [] });
    expect(await getIps(m)).toEqual([]);
  });

  it.each([
    ['a CIDR range', '10.0.0.1/24'],
    ['three parts', '1.2.3'],
    ['a bad mapped address', '::ffff:zz'],
    ['an empty string', ''],
    ['blanks', '   '],
    ['a number', 42],
    ['null', null],
    ['an address with a port', '1.2.3.4:80'],
    ['an IPv6 zone', 'fe80::1%eth0'],
    ['a wildcard', '*'],
    ['an octet above 255', '1.2.3.256'],
    ['leading zeros', '010.0.0.1'],
    ['a bracketed IPv6', '[::1]'],
    ['a host name', 'localhost'],
    ['an object', { ip: '1.2.3.4' }],
    ['a boolean', true],
  ])(
    'refuses the whole list for %s (400 INVALID_IP shape B naming it) and keeps the stored list',
    async (_what, bad) => {
      const m = await createMerchant(server);
      expect((await putIps(m, ['192.0.2.1', '2001:db8::7'])).status).toBe(200);
      const res = await putIps(m, ['198.51.100.1', bad, '198.51.100.2']);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: expect.any(String), code: 'INVALID_IP' });
      expect((res.body as unknown as { message: string }).message).toContain(JSON.stringify(bad));
      expect(await getIps(m)).toEqual(['192.0.2.1', '2001:db8::7']);
    },
  );

  it.each([
    ['a string', { ips: '10.0.0.1' }],
    ['null', { ips: null }],
    ['no list', {}],
  ])(
    'refuses %s in place of the list: 400 INVALID_IP, shape B as the list’s other refusals; list unchanged',
    async (_what, body) => {
      const m = await createMerchant(server);
      expect((await putIps(m, ['192.0.2.1'])).status).toBe(200);
      const res = await call('PUT', `${server.url}${IPS}`, { headers: m.panel, body });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        message: expect.stringMatching(/^Send \{"ips": \[\.\.\.\]\}, a list of IP addresses/),
        code: 'INVALID_IP',
      });
      expect(await getIps(m)).toEqual(['192.0.2.1']);
    },
  );

  it('allows 20 entries counted after normalization, refuses 21 with TOO_MANY_IPS (shape B), list unchanged', async () => {
    const m = await createMerchant(server);
    const twenty = Array.from({ length: 20 }, (_, i) => `192.0.2.${i + 1}`);
    const withDuplicates = [...twenty, ...twenty.slice(0, 5).map((ip) => `::ffff:${ip}`)];
    const ok = await putIps(m, withDuplicates);
    expect(ok.status).toBe(200);
    expect(ok.body.ips).toEqual(twenty);
    const res = await putIps(m, [...twenty, '192.0.2.200']);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: expect.any(String), code: 'TOO_MANY_IPS' });
    expect(await getIps(m)).toEqual(twenty);
  });

  it('400 INVALID_IP (shape B) when the body is not {ips: [...]}; 401 without a session', async () => {
    for (const body of [{ ips: '1.2.3.4' }, {}, [], { ips: null }]) {
      const res = await call('PUT', `${server.url}${IPS}`, { headers: merchant.panel, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toMatchObject({ code: 'INVALID_IP' });
    }
    const anon = await call('PUT', `${server.url}${IPS}`, { body: { ips: [] } });
    expect(anon.status).toBe(401);
    expect(anon.body).toMatchObject({ success: false, error: { code: 'UNAUTHORIZED' } });
  });
});

describe('the allow-list on API-key requests', () => {
  it('admits exactly the listed source addresses (real distinct client addresses)', async () => {
    const m = await createMerchant(server);
    expect((await balance(m, { localAddress: '127.0.0.3' })).status).toBe(200); // empty list: no restriction
    expect((await putIps(m, ['127.0.0.2'])).status).toBe(200);
    expect((await balance(m, { localAddress: '127.0.0.2' })).status).toBe(200);
    const refused = await balance(m, { localAddress: '127.0.0.3' });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(IP_NOT_ALLOWED_BODY);
    expect((await balance(m)).status).toBe(403); // 127.0.0.1
    expect((await putIps(m, [])).status).toBe(200);
    expect((await balance(m, { localAddress: '127.0.0.3' })).status).toBe(200);
  });

  it('an IPv4-mapped entry covers the IPv4 client (the server sees ::ffff:127.0.0.2 on its dual-stack socket)', async () => {
    const m = await createMerchant(server);
    expect((await putIps(m, ['::ffff:127.0.0.2'])).body.ips).toEqual(['127.0.0.2']);
    expect((await balance(m, { localAddress: '127.0.0.2' })).status).toBe(200);
    expect((await balance(m, { localAddress: '127.0.0.4' })).status).toBe(403);
  });

  it('matches IPv6 clients over ::1', async () => {
    const m = await createMerchant(server);
    const port = new URL(server.url).port;
    const v6 = `http://[::1]:${port}/api/public/balance`;
    expect((await putIps(m, ['127.0.0.1'])).status).toBe(200);
    const refused = await call('GET', v6, { headers: m.keys });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(IP_NOT_ALLOWED_BODY);
    expect((await putIps(m, ['0:0:0:0:0:0:0:1', '127.0.0.1'])).body.ips).toEqual(['::1', '127.0.0.1']);
    expect((await call('GET', v6, { headers: m.keys })).status).toBe(200);
  });

  it('does not restrict panel sessions', async () => {
    const m = await createMerchant(server);
    expect((await putIps(m, ['203.0.113.9'])).status).toBe(200);
    expect((await balance(m)).status).toBe(403);
    const me = await call('GET', `${server.url}/api/auth/me`, { headers: { cookie: m.cookie } });
    expect(me.status).toBe(200);
    expect((await putIps(m, [])).status).toBe(200);
  });

  it('ignores X-Forwarded-For when TRUST_PROXY is unset', async () => {
    const m = await createMerchant(server);
    expect((await putIps(m, ['10.1.2.3'])).status).toBe(200);
    for (const xff of ['10.1.2.3', '10.1.2.3, 127.0.0.1', '127.0.0.1, 10.1.2.3']) {
      const res = await balance(m, { headers: { 'x-forwarded-for': xff } });
      expect(res.status, xff).toBe(403);
    }
  });

  it('believes X-Forwarded-For only from a proxy listed in TRUST_PROXY', async () => {
    const m = await createMerchant(proxied);
    expect((await putIps(m, ['10.1.2.3'], proxied)).status).toBe(200);
    // from the trusted proxy 127.0.0.1: the forwarded client address counts
    expect((await balance(m, { headers: { 'x-forwarded-for': '10.1.2.3' } }, proxied)).status).toBe(200);
    // the same header from an address that is not a listed proxy is ignored
    const direct = await balance(
      m,
      { headers: { 'x-forwarded-for': '10.1.2.3' }, localAddress: '127.0.0.5' },
      proxied,
    );
    expect(direct.status).toBe(403);
    // a client spoofing the allowed address in front of its real one, through the proxy, is still refused
    const spoofed = await balance(m, { headers: { 'x-forwarded-for': '10.1.2.3, 10.9.9.9' } }, proxied);
    expect(spoofed.status).toBe(403);
    expect(spoofed.body).toEqual(IP_NOT_ALLOWED_BODY);
    // no header through the proxy: the proxy's own address, not listed
    expect((await balance(m, {}, proxied)).status).toBe(403);
  });

  it('TRUST_PROXY takes CIDR ranges', async () => {
    const ranged = await startServer({ env: { TRUST_PROXY: '127.0.0.0/30, ::1' } });
    try {
      const m = await createMerchant(ranged);
      expect((await putIps(m, ['10.1.2.3'], ranged)).status).toBe(200);
      const via = (localAddress: string) =>
        balance(m, { headers: { 'x-forwarded-for': '10.1.2.3' }, localAddress }, ranged);
      expect((await via('127.0.0.2')).status).toBe(200); // inside 127.0.0.0/30
      expect((await via('127.0.0.3')).status).toBe(200);
      expect((await via('127.0.0.4')).status).toBe(403); // outside
    } finally {
      await ranged.close();
    }
  });

  it('applies a saved list on the very next request', async () => {
    const m = await createMerchant(server);
    for (let i = 0; i < 5; i++) {
      expect((await putIps(m, ['198.51.100.77'])).status).toBe(200);
      expect((await balance(m)).status).toBe(403);
      expect((await putIps(m, ['127.0.0.1'])).status).toBe(200);
      expect((await balance(m)).status).toBe(200);
    }
  });
});
