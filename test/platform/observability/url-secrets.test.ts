/**
 * Which parts of a URL are bearer secrets, and how every logger removes them (src/platform/observability/
 * url-secrets.ts, docs/security.md "Secrets in URLs"), without a server: the URL forms, free text, and a real
 * logger's lines of each kind (a `url`, a `req`, an error, a message, a child's line, the access logger's).
 */
import { describe, expect, it } from 'vitest';
import { accessLoggerOf, createLogger } from '../../../src/platform/observability/logger.js';
import { redactUrl, redactUrlSecrets } from '../../../src/platform/observability/url-secrets.js';

describe('redactUrl', () => {
  it('replaces the secret segment and keeps the route', () => {
    for (const [url, logged] of [
      ['/billing/AbC_123-x', '/billing/[redacted]'],
      ['/api/public/billing/TOK/card', '/api/public/billing/[redacted]/card'],
      ['/checkout/5f0e8a2c-uuid?x=1', '/checkout/[redacted]?x=1'],
      ['/api/public/checkout/ID/sales/S/events', '/api/public/checkout/[redacted]/sales/S/events'],
      ['/api/checkout/sessions/ID', '/api/checkout/sessions/[redacted]'],
      ['/api/boletos/abcdef.pdf', '/api/boletos/[redacted]'],
      ['/ops#/convite/TOK', '/ops#[redacted]'],
      ['/BILLING/TOK', '/BILLING/[redacted]'],
      ['/%62illing/TOK', '/billing/[redacted]'],
      ['//billing/TOK', '//billing/[redacted]'],
      ['/api/transactions?token=abc&limit=2', '/api/transactions?token=[redacted]&limit=2'],
      ['/x?apiKey=abc', '/x?apiKey=[redacted]'],
      // the headers' names sent as parameters, any case, any separator: refused (401), and never logged
      [
        '/api/public/balance?X-Api-Public-Key=pk_1&X-Api-Private-Key=sk_a-s8N',
        '/api/public/balance?X-Api-Public-Key=[redacted]&X-Api-Private-Key=[redacted]',
      ],
      [
        '/x?private-key=s&PRIVATE-KEY=s&private%2Dkey=s',
        '/x?private-key=[redacted]&PRIVATE-KEY=[redacted]&private-key=[redacted]',
      ],
      [
        '/x?Authorization=Bearer%20s&session=s&csrf=s&auth=s&pass=s',
        '/x?Authorization=[redacted]&session=[redacted]&csrf=[redacted]&auth=[redacted]&pass=[redacted]',
      ],
      ['/x?credential=s&sk=s&bearer=s', '/x?credential=[redacted]&sk=[redacted]&bearer=[redacted]'],
      // a secret's value under any name
      ['/x?q=sk_live123&w=whsec_abc', '/x?q=[redacted]&w=[redacted]'],
    ] as const) {
      expect(redactUrl(url), url).toBe(logged);
    }
  });

  it('leaves URLs without a secret as they are', () => {
    for (const url of [
      '/api/public/balance',
      '/api/checkout/sessions',
      '/api/checkout/sessions?limit=2',
      '/api/public/billing',
      '/pay/AAAAAAAAAAAAAAAA',
      '/api/transactions?status=PAGO&cursor=abc',
      '/api/sales/12',
      '/api/events?type=sale.paid&since=2026-01-01',
      '/api/public/cashout/abc?author=x',
    ]) {
      expect(redactUrl(url), url).toBe(url);
    }
  });

  it('finds links in free text', () => {
    expect(redactUrlSecrets('Route GET:/billing/SECRET not found')).toBe(
      'Route GET:/billing/[redacted] not found',
    );
    expect(redactUrlSecrets('https://gw.example/#/nova-senha/R and https://gw.example/ops#/convite/I')).toBe(
      'https://gw.example/#/nova-senha/[redacted] and https://gw.example/ops#/convite/[redacted]',
    );
  });
});

describe('every logger', () => {
  it('writes no secret of a URL in any kind of line', () => {
    let out = '';
    const to = {
      write: (line: string) => {
        out += line;
      },
    };
    const log = createLogger('trace', to);
    log.info({ url: '/billing/TOK1' }, 'a url');
    log.info({ req: { method: 'GET', url: '/checkout/TOK2', headers: { cookie: 'c' } } }, 'a request');
    log.error({ err: new Error('Route GET:/billing/TOK3 not found') });
    log.error(
      Object.assign(new Error('bad /api/boletos/TOK4.pdf'), { rawPacket: Buffer.from('GET /billing/TOK5') }),
    );
    log.warn('Reply was already sent in "/api/public/billing/TOK6/card"');
    log.child({ reqId: 'r' }).info({ url: '/%62illing/TOK7' }, 'a child');
    accessLoggerOf(log).info({ url: '/api/checkout/sessions/TOK8', statusCode: 200 }, 'request completed');
    const lines = out.trim().split('\n');
    expect(lines).toHaveLength(7);
    expect(out).not.toMatch(/TOK\d/);
    expect(out).not.toContain('cookie');
    expect(out.match(/\[redacted\]/g)?.length).toBeGreaterThanOrEqual(8);
  });
});
