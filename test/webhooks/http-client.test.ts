import { once } from 'node:events';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotificationClient, RESPONSE_CAP_BYTES } from '../../src/webhooks/http-client.js';

const TIMEOUT_MS = 600;
let client: NotificationClient;
const servers: Server[] = [];

/** A real HTTP server on a free port answering with `listener`; counts its open connections. */
async function serve(listener: RequestListener) {
  const server = createServer(listener);
  const open = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    open.add(s);
    s.on('close', () => open.delete(s));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, open };
}

beforeAll(() => {
  client = new NotificationClient({ allowPrivate: true, timeoutMs: TIMEOUT_MS, connectionsPerOrigin: 2 });
});
afterAll(async () => {
  await client.close();
  for (const s of servers) {
    s.closeAllConnections();
    s.close();
  }
});

describe('notification client', () => {
  it('sends the body and headers as given and keeps the connection for the next attempt', async () => {
    const seen: { body: string; signature: unknown }[] = [];
    const { url, open } = await serve((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        seen.push({ body, signature: req.headers['x-service-signature'] });
        res.writeHead(204).end();
      });
    });
    const first = await client.post(url, '{"a":1}', { 'x-service-signature': 'sha256=ab' });
    const second = await client.post(url, '{"a":2}', {});
    expect(first).toMatchObject({ outcome: 'delivered', statusCode: 204, error: null });
    expect(second.outcome).toBe('delivered');
    expect(seen).toEqual([
      { body: '{"a":1}', signature: 'sha256=ab' },
      { body: '{"a":2}', signature: undefined },
    ]);
    expect(open.size).toBeGreaterThan(0);
  });

  it('maps statuses: 5xx retried, 4xx and 3xx failed', async () => {
    let status = 503;
    const { url } = await serve((_req, res) => {
      res.writeHead(status, { location: 'http://example.com/' }).end('nope');
    });
    expect(await client.post(url, '{}', {})).toMatchObject({
      outcome: 'retry',
      statusCode: 503,
      error: 'HTTP 503',
    });
    status = 410;
    expect(await client.post(url, '{}', {})).toMatchObject({ outcome: 'fail', statusCode: 410 });
    status = 302;
    expect(await client.post(url, '{}', {})).toMatchObject({
      outcome: 'fail',
      statusCode: 302,
      error: 'HTTP 302 (redirects are not followed)',
    });
  });

  it('reads a large response only up to the cap, keeps its status and cuts the connection', async () => {
    const { url, open } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      // far more than the cap, and never ended: only the cap ends the attempt
      res.write(Buffer.alloc(RESPONSE_CAP_BYTES * 64, 'x'));
    });
    const result = await client.post(url, '{}', {});
    expect(result).toMatchObject({ outcome: 'delivered', statusCode: 200, error: null });
    await expect.poll(() => open.size).toBe(0);
  });

  it('times out a response whose body stalls after the headers, and aborts it', async () => {
    const { url, open } = await serve((_req, res) => {
      res.writeHead(200);
      res.write('partial');
    });
    const result = await client.post(url, '{}', {});
    expect(result).toMatchObject({
      outcome: 'retry',
      statusCode: null,
      error: `no response within ${TIMEOUT_MS} ms`,
    });
    expect(result.durationMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
    await expect.poll(() => open.size).toBe(0);
  });

  it('reports a connection refused as a retry with its cause', async () => {
    const { url } = await serve(() => undefined);
    servers.at(-1)!.close();
    await once(servers.at(-1)!, 'close');
    const result = await client.post(url, '{}', {});
    expect(result.outcome).toBe('retry');
    expect(result.error).toMatch(/ECONNREFUSED/);
  });
});
