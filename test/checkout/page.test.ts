import { randomUUID } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageHtml, unpayableHtml } from '../../src/checkout/page-html.js';
import { loadConfig } from '../../src/platform/config/config.js';
import { moveTo } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import { createLink, createSession, PAYER, type PixPaymentBody } from './fixtures.js';

let server: TestServer;
let merchant: TestMerchant;
let other: TestMerchant;
const db = () => server.runtime.platform.db;

beforeAll(async () => {
  server = await startServer({ workers: false, env: { CHECKOUT_STREAMS_PER_IP: '2' } });
  merchant = await createMerchant(server, 'Loja da Maria');
  other = await createMerchant(server, 'Outra Loja');
});
afterAll(async () => {
  await server?.close();
  for (const agent of agents.values()) await agent.close();
});

const pay = async (path: string, body: object = PAYER) => {
  const res = await call<PixPaymentBody>('POST', `${server.url}/api/public${path}`, { body });
  expect(res.status, res.text).toBe(201);
  return res.body;
};

const agents = new Map<string, Agent>();
/** A client at another loopback address: the per-address cap counts each apart. */
const from = (localAddress: string) => {
  let agent = agents.get(localAddress);
  if (!agent) {
    agent = new Agent({ localAddress });
    agents.set(localAddress, agent);
  }
  return agent;
};

/** A payer stream read to its end (it ends after its one event), with its status. */
async function stream(path: string, localAddress?: string) {
  const res = await request(
    `${server.url}/api/public${path}`,
    localAddress ? { dispatcher: from(localAddress) } : {},
  );
  return {
    status: res.statusCode,
    headers: res.headers,
    text: () => res.body.text(),
    close: () => {
      res.body.on('error', () => undefined); // the abort it causes is the point
      res.body.destroy();
    },
  };
}

describe('the hosted page', () => {
  it('is served at /pay/<slug> with its data in the page, the panel’s CSP and no cache; its assets cached for good', async () => {
    const link = await createLink(server, merchant, { metadata: { secret: 'interno' } });
    const res = await call('GET', `${server.url}/pay/${link.slug}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("img-src 'self' data:");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.text).toContain('lang="pt-BR"');
    expect(res.text).toContain('Loja da Maria');
    // the sandbox is on in tests: the page says it is a test, before anything else in its body
    expect(res.text).toContain(
      '<aside class="test-mode" aria-label="Modo de teste"><strong>Modo de teste.</strong>',
    );
    expect(res.text).not.toContain('interno');
    expect(res.text).not.toContain(link.id);
    // no inline script: every script has a src on this origin
    const scripts = [...res.text.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
    expect(scripts.length).toBeGreaterThan(0);
    for (const tag of scripts) expect(tag).toMatch(/src="\/checkout-page\/assets\/[^"]+\.js"/);

    const asset = /src="(\/checkout-page\/assets\/[^"]+\.js)"/.exec(res.text)![1]!;
    const js = await call('GET', `${server.url}${asset}`);
    expect(js.status).toBe(200);
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(js.headers['content-security-policy']).toBe(csp);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    // gzipped for a client that takes it, the same bytes once unpacked
    const packed = await request(`${server.url}${asset}`, { headers: { 'accept-encoding': 'gzip' } });
    expect(packed.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(Buffer.from(await packed.body.arrayBuffer())).toString()).toBe(js.text);
  });

  it('says "Modo de teste" only while the sandbox is on, on payable and unpayable pages alike', () => {
    const template = '<body><div id="app"></div></body>';
    const data = { kind: 'session' as const, session: {} };
    expect(pageHtml(template, data, true)).toContain('Modo de teste');
    expect(pageHtml(template, data, false)).not.toContain('Modo de teste');
    expect(unpayableHtml(template, { kind: 'link', why: 'expired' }, true)).toContain('Modo de teste');
    expect(unpayableHtml(template, { kind: 'link', why: 'expired' }, false)).not.toContain('Modo de teste');
  });

  it('answers 404 and 410 pages in Portuguese: unknown, expired, used up, turned off; a paid session is 200', async () => {
    const expired = await createLink(server, merchant, {
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
    });
    await db().query(`UPDATE payment_links SET expires_at = now() - interval '1 second' WHERE id = $1`, [
      expired.id,
    ]);
    const usedUp = await createLink(server, merchant, { maxUses: 1 });
    await moveTo(server, merchant, (await pay(`/pay/${usedUp.slug}`)).saleId, 'PAGO');
    const off = await createLink(server, merchant);
    await call('PATCH', `${server.url}/api/payment-links/${off.id}`, {
      headers: merchant.keys,
      body: { active: false },
    });
    const oldSession = await createSession(server, merchant);
    await db().query(`UPDATE checkout_sessions SET expires_at = now() - interval '1 second' WHERE id = $1`, [
      oldSession.id,
    ]);
    const paidSession = await createSession(server, merchant);
    await moveTo(server, merchant, (await pay(`/checkout/${paidSession.id}`)).saleId, 'PAGO');

    const cases = [
      [`/pay/${expired.slug}`, 410, 'Este link de pagamento expirou'],
      [`/pay/${usedUp.slug}`, 410, 'Este link de pagamento já foi usado'],
      [`/pay/${off.slug}`, 410, 'Este link de pagamento foi desativado'],
      ['/pay/AAAAAAAAAAAAAAAA', 404, 'Link de pagamento não encontrado'],
      ['/pay/not-a-slug', 404, 'Link de pagamento não encontrado'],
      [`/checkout/${randomUUID()}`, 404, 'Página de pagamento não encontrada'],
      ['/checkout/42', 404, 'Página de pagamento não encontrada'],
      [`/checkout/${oldSession.id}`, 410, 'Esta página de pagamento expirou'],
    ] as const;
    for (const [path, status, title] of cases) {
      const res = await call('GET', `${server.url}${path}`);
      expect(res.status, path).toBe(status);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(res.text).toContain(`<h1>${title}</h1>`);
      expect(res.text).toContain(`<title>${title}</title>`);
      expect(res.text).not.toMatch(/<script/);
    }
    const paid = await call('GET', `${server.url}/checkout/${paidSession.id}`);
    expect(paid.status).toBe(200);
    expect(paid.text).toContain('&quot;status&quot;:&quot;paid&quot;');
  });
});

describe("the payer's sale stream", () => {
  it('sends `paid` once the link’s sale is paid (the link’s successUrl to go to), then ends', async () => {
    const link = await createLink(server, merchant, { successUrl: 'https://loja.example.com/obrigado' });
    const { saleId } = await pay(`/pay/${link.slug}`);
    const s = await stream(`/pay/${link.slug}/sales/${saleId}/events`);
    expect(s.status).toBe(200);
    expect(s.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    await moveTo(server, merchant, saleId, 'PAGO');
    expect(await s.text()).toBe(
      'retry: 3000\n\nevent: paid\ndata: {"redirectUrl":"https://loja.example.com/obrigado"}\n\n',
    );
  });

  it('sends `paid` at once for a sale already paid, with a session’s successUrl and session_id', async () => {
    const session = await createSession(server, merchant);
    const { saleId } = await pay(`/checkout/${session.id}`);
    await moveTo(server, merchant, saleId, 'PAGO');
    const s = await stream(`/checkout/${session.id}/sales/${saleId}/events`);
    expect(s.status).toBe(200);
    const url = `https://loja.example.com/obrigado?pedido=1001&session_id=${session.id}`;
    expect(await s.text()).toBe(
      `retry: 3000\n\nevent: paid\ndata: {"redirectUrl":${JSON.stringify(url)}}\n\n`,
    );
  });

  it('is told only of its own sale: another sale paid meanwhile sends nothing', async () => {
    const link = await createLink(server, merchant);
    const mine = await pay(`/pay/${link.slug}`);
    const theirs = await pay(`/pay/${link.slug}`);
    const s = await stream(`/pay/${link.slug}/sales/${mine.saleId}/events`);
    await moveTo(server, merchant, theirs.saleId, 'PAGO');
    await moveTo(server, merchant, mine.saleId, 'PAGO');
    // the first event is this sale's; the stream ends after it
    expect(await s.text()).toBe('retry: 3000\n\nevent: paid\ndata: {"redirectUrl":null}\n\n');
  });

  it('sends `expired` for a sale that can no longer be paid', async () => {
    const link = await createLink(server, merchant);
    const { saleId } = await pay(`/pay/${link.slug}`);
    await moveTo(server, merchant, saleId, 'CANCELADO');
    const s = await stream(`/pay/${link.slug}/sales/${saleId}/events`);
    expect(await s.text()).toBe('retry: 3000\n\nevent: expired\ndata: {}\n\n');
  });

  it('sends `expired` to a page already open when its sale is cancelled meanwhile, then ends', async () => {
    const link = await createLink(server, merchant);
    const { saleId } = await pay(`/pay/${link.slug}`);
    const s = await stream(`/pay/${link.slug}/sales/${saleId}/events`);
    expect(s.status).toBe(200);
    await moveTo(server, merchant, saleId, 'CANCELADO');
    expect(await s.text()).toBe('retry: 3000\n\nevent: expired\ndata: {}\n\n');
  });

  it('answers 404 for a sale of another link, session or merchant, an unknown sale and an unknown link', async () => {
    const link = await createLink(server, merchant);
    const otherLink = await createLink(server, other);
    const session = await createSession(server, merchant);
    const linkSale = (await pay(`/pay/${link.slug}`)).saleId;
    const sessionSale = (await pay(`/checkout/${session.id}`)).saleId;
    for (const path of [
      `/pay/${otherLink.slug}/sales/${linkSale}/events`,
      `/pay/${link.slug}/sales/${sessionSale}/events`,
      `/pay/${link.slug}/sales/${randomUUID()}/events`,
      `/pay/${link.slug}/sales/not-a-uuid/events`,
      `/pay/AAAAAAAAAAAAAAAA/sales/${linkSale}/events`,
      `/checkout/${session.id}/sales/${linkSale}/events`,
      `/checkout/${randomUUID()}/sales/${sessionSale}/events`,
    ]) {
      const res = await call<{ error: string }>('GET', `${server.url}/api/public${path}`);
      expect(res.status, path).toBe(404);
      expect(res.body.error).toBe('NOT_FOUND');
      expect(res.text).not.toContain('PAGO');
    }
  });

  it('CHECKOUT_STREAMS_PER_IP defaults to 20; 0 turns the cap off', () => {
    const base = { NODE_ENV: 'test', DATA_DIR: '/tmp/gw-streams-config', DATABASE_URL: 'postgres://x/y' };
    expect(loadConfig(base).checkoutStreamsPerIp).toBe(20);
    expect(loadConfig({ ...base, CHECKOUT_STREAMS_PER_IP: '0' }).checkoutStreamsPerIp).toBe(0);
  });

  it('holds at most CHECKOUT_STREAMS_PER_IP open per address (429), and a closed one frees its place', async () => {
    const link = await createLink(server, merchant);
    const { saleId } = await pay(`/pay/${link.slug}`);
    const path = `/pay/${link.slug}/sales/${saleId}/events`;
    const a = await stream(path, '127.0.0.3');
    const b = await stream(path, '127.0.0.3');
    const c = await stream(path, '127.0.0.3');
    expect([a.status, b.status, c.status]).toEqual([200, 200, 429]);
    expect(c.headers['retry-after']).toBe('60');
    expect(JSON.parse(await c.text())).toMatchObject({ error: 'RATE_LIMITED' });
    expect((await stream(path, '127.0.0.4')).status).toBe(200);
    a.close();
    await expect
      .poll(async () => {
        const d = await stream(path, '127.0.0.3');
        d.close();
        return d.status;
      })
      .toBe(200);
    b.close();
  });
});
