import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { postbackSignature } from '../../src/postbacks/signing.js';
import { serviceSignature, signWebhook, standardSignature } from '../../src/webhooks/signing.js';
import {
  EventIdDeduplicator,
  signedEventType,
  verifyPostback,
  verifyStandardWebhook,
  verifyWebhook,
} from '../../src/webhooks/verify.js';

const vectors = JSON.parse(
  readFileSync(path.resolve(import.meta.dirname, '../fixtures/vectors.json'), 'utf8'),
);
const ws = vectors.webhookSignature;
const sw = vectors.standardWebhooks;
const pb = vectors.postbackSignature;

describe('signing matches the worked examples', () => {
  it('X-Service-Signature', () => {
    expect(serviceSignature(ws.secret, ws.timestamp, ws.rawBody)).toBe(ws['X-Service-Signature']);
  });
  it('Standard Webhooks webhook-signature', () => {
    expect(standardSignature(sw.secret, sw['webhook-id'], sw['webhook-timestamp'], sw.rawBody)).toBe(
      sw['webhook-signature'],
    );
  });
  it('postback X-Signature', () => {
    expect(postbackSignature(pb.postbackSecret, pb.rawBody)).toBe(pb['X-Signature']);
  });
});

describe('verifyWebhook (receiver side)', () => {
  const now = Number(ws.timestamp) + 10;
  // what the gateway sends for the vector's body: the spec's signature plus the Standard Webhooks headers
  const signed = signWebhook(ws.secret, 'evt-1', 'sale.paid', ws.rawBody, false, Number(ws.timestamp) * 1000);
  const headers = Object.fromEntries(Object.entries(signed.headers).map(([k, v]) => [k.toUpperCase(), v]));

  it('accepts the vector over raw bytes or text, with any header case', () => {
    expect(signed.headers['x-service-signature']).toBe(ws['X-Service-Signature']);
    expect(verifyWebhook({ body: Buffer.from(ws.rawBody), headers, secret: ws.secret, now })).toEqual({
      ok: true,
      eventId: 'evt-1',
      eventType: null, // the vector's body has no `eventType`: the unsigned header is never taken instead
      timestamp: Number(ws.timestamp),
      redelivery: false,
    });
    expect(verifyWebhook({ body: ws.rawBody, headers, secret: ws.secret, now }).ok).toBe(true);
  });

  it('rejects re-serialized JSON, a wrong secret, a tampered signature and stale or future timestamps', () => {
    const pretty = JSON.stringify(JSON.parse(ws.rawBody), null, 1);
    expect(verifyWebhook({ body: pretty, headers, secret: ws.secret, now }).ok).toBe(false);
    expect(verifyWebhook({ body: ws.rawBody, headers, secret: `${ws.secret}x`, now }).ok).toBe(false);
    const tampered = {
      ...signed.headers,
      'x-service-signature': `${ws['X-Service-Signature'].slice(0, -1)}0`,
    };
    expect(verifyWebhook({ body: ws.rawBody, headers: tampered, secret: ws.secret, now }).ok).toBe(false);
    expect(verifyWebhook({ body: ws.rawBody, headers, secret: ws.secret, now: now + 301 })).toEqual({
      ok: false,
      reason: 'timestamp outside the tolerance window',
    });
    expect(
      verifyWebhook({ body: ws.rawBody, headers, secret: ws.secret, now: Number(ws.timestamp) - 301 }).ok,
    ).toBe(false);
    expect(verifyWebhook({ body: ws.rawBody, headers: {}, secret: ws.secret, now }).ok).toBe(false);
  });

  it('refuses a relabelled delivery: the event type and id come from what is signed', () => {
    const secret = 'whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=';
    const body =
      '{"id":7,"uuid":"u","userId":1,"amount":"100","status":"PENDENTE","type":"TRANSACTION","eventType":"sale.pending"}';
    const captured = signWebhook(secret as never, 'evt-pending', 'sale.pending', body, false).headers;
    expect(verifyWebhook({ body, headers: captured, secret })).toMatchObject({
      ok: true,
      eventId: 'evt-pending',
      eventType: 'sale.pending',
    });
    const relabelled = { ...captured, 'x-service-event-type': 'sale.paid' };
    expect(verifyWebhook({ body, headers: relabelled, secret })).toEqual({
      ok: false,
      reason: 'X-Service-Event-Type does not match the signed body',
    });
    const newId = { ...captured, 'x-service-event-id': 'evt-fresh' };
    expect(verifyWebhook({ body, headers: newId, secret })).toMatchObject({ ok: false });
    const newSignedId = { ...captured, 'webhook-id': 'evt-fresh', 'x-service-event-id': 'evt-fresh' };
    expect(verifyWebhook({ body, headers: newSignedId, secret })).toMatchObject({ ok: false });
    const specOnly = Object.fromEntries(Object.entries(captured).filter(([k]) => k.startsWith('x-')));
    expect(verifyWebhook({ body, headers: specOnly, secret })).toMatchObject({ ok: false });
    // the type is the body's eventType, never inferred from its status: a partial refund is a PAGO sale
    expect(signedEventType(body.replace('PENDENTE', 'PAGO'))).toBe('sale.pending');
    const partialRefund = '{"id":7,"status":"PAGO","type":"TRANSACTION","eventType":"sale.refunded"}';
    const refunded = signWebhook(
      secret as never,
      'evt-refund',
      'sale.refunded',
      partialRefund,
      false,
    ).headers;
    expect(verifyWebhook({ body: partialRefund, headers: refunded, secret })).toMatchObject({
      ok: true,
      eventType: 'sale.refunded',
    });
    // a body that states no event: no type, whatever its status or the unsigned header say
    expect(signedEventType('{"id":7,"status":"PAGO","type":"TRANSACTION"}')).toBeNull();
  });

  it('round-trips what the gateway signs, redelivery included', () => {
    const secret = 'whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=';
    const body = '{"id":1,"status":"COMPLETED","type":"WITHDRAWAL","eventType":"withdrawal.completed"}';
    const signed = signWebhook(secret as never, 'evt-9', 'withdrawal.completed', body, true);
    const result = verifyWebhook({ body, headers: signed.headers, secret });
    expect(result).toMatchObject({
      ok: true,
      eventId: 'evt-9',
      eventType: 'withdrawal.completed',
      redelivery: true,
    });
    expect(verifyStandardWebhook({ body, headers: signed.headers, secret }).ok).toBe(true);
    expect(new StandardWebhook(secret).verify(body, signed.headers)).toEqual(JSON.parse(body));
  });
});

describe('verifyStandardWebhook', () => {
  const headers = {
    'webhook-id': sw['webhook-id'],
    'webhook-timestamp': sw['webhook-timestamp'],
    'webhook-signature': `v1,bogus= ${sw['webhook-signature']}`,
  };
  it('accepts the vector (one of several listed signatures) and rejects changes', () => {
    const now = Number(sw['webhook-timestamp']);
    expect(verifyStandardWebhook({ body: sw.rawBody, headers, secret: sw.secret, now }).ok).toBe(true);
    expect(verifyStandardWebhook({ body: `${sw.rawBody} `, headers, secret: sw.secret, now }).ok).toBe(false);
    expect(
      verifyStandardWebhook({
        body: sw.rawBody,
        headers: { ...headers, 'webhook-id': 'evt_0002' },
        secret: sw.secret,
        now,
      }).ok,
    ).toBe(false);
    expect(verifyStandardWebhook({ body: sw.rawBody, headers, secret: sw.secret, now: now + 1000 }).ok).toBe(
      false,
    );
  });
});

describe('verifyPostback', () => {
  it('accepts the vector and rejects any other bytes or secret', () => {
    expect(
      verifyPostback({ body: pb.rawBody, signature: pb['X-Signature'], postbackSecret: pb.postbackSecret }),
    ).toBe(true);
    expect(
      verifyPostback({
        body: Buffer.from(pb.rawBody),
        signature: pb['X-Signature'],
        postbackSecret: pb.postbackSecret,
      }),
    ).toBe(true);
    expect(
      verifyPostback({
        body: `${pb.rawBody}\n`,
        signature: pb['X-Signature'],
        postbackSecret: pb.postbackSecret,
      }),
    ).toBe(false);
    expect(verifyPostback({ body: pb.rawBody, signature: pb['X-Signature'], postbackSecret: 'other' })).toBe(
      false,
    );
    expect(
      verifyPostback({ body: pb.rawBody, signature: undefined, postbackSecret: pb.postbackSecret }),
    ).toBe(false);
  });
});

describe('EventIdDeduplicator', () => {
  it('processes an event id once', () => {
    const d = new EventIdDeduplicator(60);
    expect(d.firstTime('a', 1000)).toBe(true);
    expect(d.firstTime('a', 1001)).toBe(false);
    expect(d.firstTime('b', 1001)).toBe(true);
    expect(d.firstTime('a', 1100)).toBe(true);
  });
});
