import { mkdtempSync } from 'node:fs';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/platform/config/config.js';
import { openDb } from '../../../src/platform/db/db.js';
import { conflict } from '../../../src/platform/errors/app-error.js';
import { healthRoute } from '../../../src/platform/http/health.js';
import { createHttp } from '../../../src/platform/http/server.js';
import { createMerchant, type TestMerchant } from '../../support/factories.js';
import { call } from '../../support/http.js';
import { LogWatch } from '../../support/log-watch.js';
import { startServer, type TestServer } from '../../support/server.js';

let server: TestServer;
let withMetrics: TestServer;
let merchant: TestMerchant;
const TOKEN = 'metrics-token-for-tests';

beforeAll(async () => {
  server = await startServer();
  withMetrics = await startServer({ env: { METRICS_TOKEN: TOKEN } });
  merchant = await createMerchant(server);
});
afterAll(async () => {
  await server?.close();
  await withMetrics?.close();
});

describe('GET /health', () => {
  it('answers 200 {"status":"ok"} once migrated and the database answers', async () => {
    const res = await call('GET', `${server.url}/health`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });
});

describe('GET /health when the database is gone', () => {
  it('answers 503', async () => {
    const doomed = await startServer();
    try {
      await doomed.runtime.platform.db.close();
      const res = await call('GET', `${doomed.url}/health`);
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ status: 'unavailable' });
    } finally {
      await doomed.close();
    }
  });
});

describe('GET /health when the database does not answer', () => {
  it('answers 503 instead of waiting with it', async () => {
    // a frozen database server (SIGSTOPped, say): it accepts connections and never says a word
    const sockets: Socket[] = [];
    const frozen = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => frozen.listen(0, '127.0.0.1', resolve));
    const port = (frozen.address() as AddressInfo).port;
    const db = openDb({ databaseUrl: `postgres://gateway@127.0.0.1:${port}/gateway` });
    const app = await createHttp(
      loadConfig({ DATA_DIR: mkdtempSync(path.join(tmpdir(), 'gw-health-')) }),
      pino({ level: 'silent' }),
    );
    healthRoute(app, db);
    try {
      const res = await app.inject({ method: 'GET', url: '/health' });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ status: 'unavailable' });
    } finally {
      await app.close();
      for (const socket of sockets) socket.destroy();
      frozen.close();
      await db.close().catch(() => undefined);
    }
  });
});

describe('request bodies', () => {
  it('refuses bodies above 1 MiB with 413', async () => {
    const big = JSON.stringify({ ips: ['1.2.3.4'], pad: 'x'.repeat(1024 * 1024) });
    const res = await call('PUT', `${server.url}/api/settings/allowed-ips`, {
      headers: merchant.panel,
      body: big,
    });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ success: false, error: { code: 'PAYLOAD_TOO_LARGE' } });
  });

  it('accepts a body just under 1 MiB', async () => {
    const body = JSON.stringify({ email: 'x@example.com', password: 'y', pad: 'x'.repeat(1000 * 1000) });
    const res = await call('POST', `${server.url}/api/auth/login`, { body });
    expect(res.status).not.toBe(413);
  });

  it('answers 400 (not 500) for malformed JSON', async () => {
    const res = await call('POST', `${server.url}/api/auth/login`, { body: '{"email": ' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
  });

  it('takes an empty body sent as application/json as no body (bodiless POSTs)', async () => {
    const res = await call('POST', `${server.url}/api/credentials`, {
      headers: { ...merchant.panel, 'content-type': 'application/json' },
    });
    expect(res.status, res.text).toBe(201);
  });

  it('refuses prototype-poisoning JSON with 400, on default and raw-body routes alike', async () => {
    const poisoned = '{"amount":150,"pixKey":"52998224725","__proto__":{"admin":true}}';
    for (const path of ['/api/public/cashout', '/api/settings/allowed-ips']) {
      const headers = path.includes('public') ? merchant.keys : merchant.panel;
      const res = await call(path.includes('public') ? 'POST' : 'PUT', `${server.url}${path}`, {
        headers: { ...headers, 'content-type': 'application/json' },
        body: poisoned,
      });
      expect(res.status, res.text).toBe(400);
    }
  });

  it('answers 404 shape A for unknown routes', async () => {
    const res = await call('GET', `${server.url}/api/nothing-here`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, error: { code: 'NOT_FOUND', message: expect.any(String) } });
  });
});

describe('GET /metrics', () => {
  it('is 404 when METRICS_TOKEN is unset', async () => {
    const res = await call('GET', `${server.url}/metrics`, { headers: { authorization: 'Bearer x' } });
    expect(res.status).toBe(404);
  });

  it('needs the bearer token when METRICS_TOKEN is set', async () => {
    expect((await call('GET', `${withMetrics.url}/metrics`)).status).toBe(401);
    const wrong = await call('GET', `${withMetrics.url}/metrics`, {
      headers: { authorization: `Bearer ${TOKEN}x` },
    });
    expect(wrong.status).toBe(401);
    await call('GET', `${withMetrics.url}/health`);
    const res = await call('GET', `${withMetrics.url}/metrics`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(res.status).toBe(200);
    expect(String(res.headers['content-type'])).toContain('text/plain');
    expect(res.text).toContain('http_request_duration_seconds_count');
    expect(res.text).toContain('route="/health"');
  });
});

describe('GET /openapi.json', () => {
  it('documents every public and panel route with its response statuses', async () => {
    const res = await call<{ openapi: string; paths: Record<string, Record<string, { responses: object }>> }>(
      'GET',
      `${server.url}/openapi.json`,
    );
    expect(res.status).toBe(200);
    expect(res.body.openapi).toMatch(/^3\./);
    const paths = res.body.paths;
    expect(Object.keys(paths['/api/public/balance']!)).toEqual(['get']);
    expect(Object.keys(paths['/api/public/balance']!.get!.responses).sort()).toEqual([
      '200',
      '400',
      '401',
      '403',
      '429',
      '500',
      '503',
    ]);
    expect(paths['/api/auth/login']!.post).toBeDefined();
    expect(paths['/api/auth/logout']!.post).toBeDefined();
    expect(paths['/api/auth/me']!.get).toBeDefined();
    expect(paths['/api/credentials']!.post).toBeDefined();
    expect(paths['/api/credentials']!.get).toBeDefined();
    expect(paths['/api/credentials/{id}']!.delete).toBeDefined();
    expect(paths['/api/settings/allowed-ips']!.get).toBeDefined();
    expect(paths['/api/settings/allowed-ips']!.put).toBeDefined();
    expect(paths['/internal/cli']).toBeUndefined();
    expect(paths['/metrics']!.get).toBeDefined();
  });
});

describe('the error catalogue at run time', () => {
  it('logs a fault, which fails the test, when a route answers a code its catalogue does not list', async () => {
    const logs = new LogWatch('catalogue');
    const app = await createHttp(
      loadConfig({ DATA_DIR: mkdtempSync(path.join(tmpdir(), 'gw-catalogue-')) }),
      pino({ level: 'warn' }, logs),
    );
    app.post('/api/listed', { config: { errors: ['CONFLICT'] } }, async () => {
      throw conflict('listed');
    });
    app.post('/api/unlisted', async () => {
      throw conflict('not listed');
    });
    try {
      expect((await app.inject({ method: 'POST', url: '/api/listed' })).statusCode).toBe(409);
      expect(logs.takeUnexpected()).toEqual([]);
      expect((await app.inject({ method: 'POST', url: '/api/unlisted' })).statusCode).toBe(409);
      const faults = logs.takeUnexpected();
      expect(faults).toHaveLength(1);
      expect(faults[0]).toContain('missing from the route’s catalogue');
      expect(faults[0]).toContain('POST /api/unlisted');
    } finally {
      logs.end();
      await app.close();
    }
  });
});
