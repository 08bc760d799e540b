import { type ClientRequest, type IncomingMessage, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestMerchant } from '../support/factories.js';
import { startServer, type TestServer } from '../support/server.js';
import { disputeMerchant, openDispute, paidSale } from './fixtures.js';

let server: TestServer;
let merchant: TestMerchant;

beforeAll(async () => {
  server = await startServer({ workers: false });
  merchant = await disputeMerchant(server);
});
afterAll(() => server?.close());

interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

/**
 * An answer whose body is sent part by part: `send` writes one PDF file's beginning, `end` the rest; `answer`
 * resolves with the server's answer whenever it comes, body finished or not.
 */
function openUpload(disputeId: string) {
  const boundary = '----gwtest';
  const req: ClientRequest = request(`${server.url}/api/disputes/${disputeId}/evidence`, {
    method: 'POST',
    headers: { ...merchant.keys, 'content-type': `multipart/form-data; boundary=${boundary}` },
  });
  req.on('error', () => undefined); // a server that answered and closed may cut the rest of the body
  const answer = new Promise<Answer>((resolve) => {
    req.on('response', (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: JSON.parse(text) }));
    });
  });
  return {
    answer,
    send() {
      req.write(
        `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="a.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.7\n`,
      );
      req.write(Buffer.alloc(64 * 1024, 0x20));
    },
    end() {
      req.end(`\r\n--${boundary}--\r\n`);
    },
  };
}

async function newDispute() {
  const sale = await paidSale(server, merchant, 10000);
  const res = await openDispute(server, merchant, sale.uuid, { kind: 'med', reason: 'golpe' });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

describe('an evidence answer is checked before its body is read', () => {
  it('to an unknown dispute: 404 while the body is still being sent, and the connection is closed', async () => {
    const upload = openUpload('6f1c2b8e-7d14-4f3a-9b6e-1c2d3e4f5a6b');
    upload.send(); // never ended
    const res = await upload.answer;
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'NOT_FOUND', message: 'Dispute not found' });
    expect(res.headers.connection).toBe('close');
  });

  it('a second answer of the account while one is read: 429 with Retry-After at once; the first completes', async () => {
    const id = await newDispute();
    const other = await newDispute();
    const first = openUpload(id);
    first.send();
    await new Promise((r) => setTimeout(r, 200)); // the first holds the account's room
    const second = openUpload(other);
    second.send();
    const refused = await second.answer;
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: 'RATE_LIMITED', message: expect.any(String) });
    expect(refused.headers['retry-after']).toBe('5');
    expect(refused.headers['ratelimit-limit']).toBe('1');
    first.end();
    const done = await first.answer;
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({
      status: 'under_review',
      evidence: [{ name: 'a.pdf', size: 9 + 64 * 1024 }],
    });
    // the room is free again
    const again = openUpload(other);
    again.send();
    again.end();
    expect((await again.answer).status).toBe(200);
  });

  it('a declared length past every file at its limit: 413 before anything is read', async () => {
    const id = await newDispute();
    const req = request(`${server.url}/api/disputes/${id}/evidence`, {
      method: 'POST',
      headers: {
        ...merchant.keys,
        'content-type': 'multipart/form-data; boundary=x',
        'content-length': String(60 * 1024 * 1024),
      },
    });
    req.on('error', () => undefined);
    const status = new Promise<number>((resolve) => req.on('response', (res) => resolve(res.statusCode!)));
    req.write('--x\r\n');
    expect(await status).toBe(413);
    req.destroy();
  });
});
